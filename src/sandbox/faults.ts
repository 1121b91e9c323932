// Faults a test (or `tally sandbox --fault`) injects: transport trouble, error bodies in each
// family's own shape, rate limits, and raw answers.
import type { ServerResponse } from 'node:http';
import { familyError, familyOf } from './families.js';
import { send, sendJson } from './http.js';
import { type LimitScope, rateLimitedBody } from './limits.js';

export type FaultKind =
  | 'draining'
  | 'rate-limit'
  | 'error-200'
  | 'success-false'
  | 'unsupported'
  | 'html'
  | 'truncated'
  | 'hang'
  | 'stall'
  | 'reset'
  | 'slow'
  | 'status';

export const FAULT_KINDS: FaultKind[] = ['draining', 'rate-limit', 'error-200', 'success-false', 'unsupported', 'html', 'truncated', 'hang', 'stall', 'reset', 'slow'];

export interface Fault {
  kind: FaultKind;
  /** How many requests it affects (default 1; Infinity for all). */
  times?: number;
  /** Only requests whose path starts with this. */
  path?: string;
  /** For `slow`: delay before a normal answer. */
  delayMs?: number;
  /** For `status`: what to answer. */
  status?: number;
  body?: string;
  headers?: Record<string, string>;
}

/** Answers with the first fault that matches the path, if any; true when the request is done with. */
export async function applyFault(faults: Fault[], path: string, res: ServerResponse, limits: Record<LimitScope, number>): Promise<boolean> {
  const index = faults.findIndex((f) => !f.path || path.startsWith(f.path));
  if (index < 0) return false;
  const fault = faults[index]!;
  fault.times = (fault.times ?? 1) - 1;
  if (fault.times <= 0) faults.splice(index, 1);
  const family = familyOf(path);
  switch (fault.kind) {
    case 'draining': sendJson(res, 503, { error: 'instance draining' }); return true;
    case 'rate-limit': {
      const scope: LimitScope = family === 'models' ? 'models' : 'account';
      sendJson(res, 429, rateLimitedBody(scope), { 'X-RateLimit-Limit': String(limits[scope]), 'X-RateLimit-Remaining': '-3', ...fault.headers });
      return true;
    }
    // Each family's own error shape (the spec's Errors table): a native 500 {error: string}, a
    // catalog 200 {success: false}, a compatible 200 {error: object}.
    case 'error-200':
    case 'success-false': {
      const { status, body } = familyError(family, fault.kind === 'success-false' ? 'pricing catalog is being rebuilt' : 'billing backend unavailable');
      sendJson(res, status, body);
      return true;
    }
    case 'unsupported':
      sendJson(res, 503, { error: { type: 'service_unavailable', code: 'endpoint_unsupported_by_providers', message: 'no upstream supports this endpoint for the model', request_id: 'req_sbx' }, request_id: 'req_sbx' });
      return true;
    case 'html': send(res, 200, '<!doctype html><html><body><h1>502 Bad Gateway</h1></body></html>', 'text/html'); return true;
    case 'truncated': send(res, 200, '{"currency":"CNY","balance":"12'); return true;
    case 'hang': return true;
    case 'stall':
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"currency":"CNY",');
      return true;
    case 'reset': res.socket?.destroy(); return true;
    case 'slow': await new Promise((resolve) => setTimeout(resolve, fault.delayMs ?? 1000)); return false;
    case 'status': send(res, fault.status ?? 500, fault.body ?? '', 'application/json', fault.headers); return true;
  }
}
