// What a running `tally proxy` says of itself, for the commands that show its live figures
// (`status`, and through it the MCP server): one small file per profile, gateway and key in the
// state folder (cache/proxy-<profile>-<id>.json, 0600), written as its ledger moves and removed
// when it stops. It is also the claim that one proxy holds a profile's ledger: a second proxy for
// the same profile and key refuses to start while the first one's process lives.
import { unlinkSync } from 'node:fs';
import { dirname } from 'node:path';
import { cachePath, credentialId } from './cache-key.js';
import { readOwnStateFile } from './read-file.js';
import { ensurePrivateDir, processExists, writeFileAtomic } from './files.js';
import { isKeptDecimal } from '../domain/decimal-text.js';
import type { Decimal } from '../domain/money.js';

/** The proxy's live figures: what went through it (booked by the gateway's log, else estimated from each answer's usage at the catalog's prices). */
export interface ProxyFigures {
  pid: number;
  url: string;
  profile: string;
  base_url: string;
  credential_id: string;
  /** ISO 8601. */
  started_at: string;
  updated_at: string;
  /** What the limits count: each call's booked charge, else its estimate. */
  spent: string;
  /** The sum of the estimates from usage. */
  estimated: string;
  /** The sum of the charges the gateway's log booked for the proxy's calls, and how many. */
  booked: string;
  booked_calls: number;
  /** Calls the gateway served that its log has not booked yet (at their estimate meanwhile). */
  awaiting: number;
  in_flight: string;
  calls: number;
  refused: number;
  unpriced: number;
  limits: string[];
}

export interface ProxyOwner {
  profile: string;
  baseUrl: URL;
  secret: string;
}

export function proxyStatePath(stateDir: string, who: ProxyOwner): string {
  return cachePath(stateDir, `proxy-${who.profile}`, who.baseUrl, who.secret);
}

const count = (v: unknown) => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
const text = (v: unknown, max = 512) => typeof v === 'string' && v.length > 0 && v.length <= max;

/** The figures of a proxy running now for this owner; undefined when none runs (or the file is not one a proxy wrote for it). */
export function runningProxy(stateDir: string, who: ProxyOwner, alive: (pid: number) => boolean = processExists): ProxyFigures | undefined {
  let file: unknown;
  try {
    file = JSON.parse(readOwnStateFile(proxyStatePath(stateDir, who), 64 * 1024).toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof file !== 'object' || file === null) return undefined;
  const f = file as Record<string, unknown>;
  const ok =
    count(f.pid) && text(f.url) && /^http:\/\//.test(f.url as string) && f.profile === who.profile && f.base_url === who.baseUrl.href && f.credential_id === credentialId(who.secret) &&
    text(f.started_at, 64) && text(f.updated_at, 64) && isKeptDecimal(f.spent) && isKeptDecimal(f.estimated) && isKeptDecimal(f.booked) && count(f.booked_calls) && count(f.awaiting) && isKeptDecimal(f.in_flight) && count(f.calls) && count(f.refused) && count(f.unpriced) &&
    Array.isArray(f.limits) && f.limits.every((l) => text(l));
  if (!ok || !alive(f.pid as number)) return undefined;
  return f as unknown as ProxyFigures;
}

/** The figures a ledger stands at, as the file keeps them. */
export function proxyFigures(ledger: { spent: Decimal; estimated: Decimal; booked: Decimal; bookedCalls: number; inFlight: Decimal; calls: number; refused: number; unpriced: number }, awaiting: number): Pick<ProxyFigures, 'spent' | 'estimated' | 'booked' | 'booked_calls' | 'awaiting' | 'in_flight' | 'calls' | 'refused' | 'unpriced'> {
  return { spent: ledger.spent.toFixed(), estimated: ledger.estimated.toFixed(), booked: ledger.booked.toFixed(), booked_calls: ledger.bookedCalls, awaiting, in_flight: ledger.inFlight.toFixed(), calls: ledger.calls, refused: ledger.refused, unpriced: ledger.unpriced };
}

/** Writes the proxy's figures (best effort: a state folder that cannot be written only hides them from status). */
export function writeProxyFigures(stateDir: string, who: ProxyOwner, figures: Omit<ProxyFigures, 'profile' | 'base_url' | 'credential_id'>): void {
  const path = proxyStatePath(stateDir, who);
  try {
    ensurePrivateDir(dirname(path), { own: true });
    writeFileAtomic(path, [JSON.stringify({ ...figures, profile: who.profile, base_url: who.baseUrl.href, credential_id: credentialId(who.secret) })], { mode: 0o600 });
  } catch {
    // Not shown by status; the proxy works the same.
  }
}

/** The proxy stopped: its figures go (only its own: another proxy's file is left). */
export function forgetProxy(stateDir: string, who: ProxyOwner, pid: number): void {
  if (runningProxy(stateDir, who, () => true)?.pid !== pid) return;
  try {
    unlinkSync(proxyStatePath(stateDir, who));
  } catch {
    // Gone already.
  }
}

