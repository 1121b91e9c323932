// What a request to the gateway is, and what comes back: the types every endpoint module uses.
import type { JsonValue } from '../domain/json.js';
import type { Transport } from './transport-types.js';
import type { RetryPolicy } from './pacing.js';

export type CredentialKind = 'api-key' | 'device-token';

export interface Credential {
  kind: CredentialKind;
  secret: string;
}

/**
 * Which error conventions a path follows (see the spec's Errors table):
 * native `/v1/open/*`, compatible billing, the public catalog, the model lists, OAuth.
 */
export type Family = 'native' | 'compat' | 'catalog' | 'models' | 'oauth';

export interface JsonRequest {
  path: string;
  query?: Record<string, string | undefined>;
  family: Family;
  /** `api-key`: only an API key works here; `any`: a device token too; `none`: never sent. */
  auth: 'api-key' | 'any' | 'none';
  method?: 'GET' | 'POST';
  form?: Record<string, string>;
  /** Statuses whose JSON body the caller reads itself (OAuth errors are 400s). */
  acceptStatus?: (status: number) => boolean;
  /** false: a 429 here is final (an endpoint behind a strict limit of its own, whose window a retry within seconds never reopens). */
  retryRateLimit?: false;
  /**
   * A long export (logs --all): when the gateway's rate limit is used up, wait for its window
   * (60 s) to reopen rather than a request's share of it, and keep waiting on a 429: the export
   * finishes at the pace the gateway allows.
   */
  patient?: true;
}

export interface JsonResponse {
  status: number;
  headers: Record<string, string | undefined>;
  body: JsonValue;
  /** The body exactly as received. */
  text: string;
  /** The body's bytes as received (a byte order mark left out, as from `text`). */
  bytes: Buffer;
  url: URL;
}

/** A 2xx answer whose bytes the caller knew as ones it already holds (see requestJsonUnlessKnown): not decoded or parsed. */
export interface UnchangedResponse {
  unchanged: true;
  status: number;
  headers: Record<string, string | undefined>;
  /** The body's bytes as received (a byte order mark left out). */
  bytes: Buffer;
}

export interface HttpClientOptions {
  baseUrl: URL;
  credential?: Credential;
  transport: Transport;
  /** Aborts on the command deadline (reason TimeoutError) or Ctrl-C (reason Interrupted). */
  signal: AbortSignal;
  /** Milliseconds since the epoch at which the command's deadline falls. */
  deadline: number;
  /** Every request waits out a rate limit's window within the deadline (fleets, digests), as a long export's pages do. */
  patient?: boolean;
  timeoutSeconds: number;
  log?: (line: string) => void;
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  random: () => number;
  now: () => number;
  retry?: RetryPolicy;
  maxBodyBytes?: number;
  userAgent?: string;
  /** Told why the client waits (rate limited, the gateway draining), for a progress line; undefined when the wait is over. */
  onWait?: (reason: string | undefined) => void;
}
