// The statusline's cache: the last figures fetched for a profile, one small file in the state
// folder keyed by the gateway and the credential that asked (cache/statusline-<profile>-<id>.json:
// a key's daily limit is that key's), and a lock so that at most one refresh runs at a time.
// This module is what a prompt pays for on every keystroke: it loads nothing else of tally but
// the number formatting, the cache key and the careful file read.
import { closeSync, openSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { formatAmount, formatShare } from '../output/money.js';
import { escapeControl } from '../output/escape.js';
import { cachePath, credentialId } from '../settings/cache-key.js';
import { readOwnStateFile } from '../settings/read-file.js';
import { isKeptDecimal } from '../domain/decimal-text.js';
import { trimEnd } from '../domain/trim.js';

export interface StatuslineFigures {
  base_url: string;
  profile: string;
  /** Whose figures these are: a hash of the credential (never the secret). */
  credential_id: string;
  /** ISO 8601. */
  fetched_at: string;
  currency: string;
  balance: string;
  /** The key's spend today and daily limit; null for a device token or a key without them. */
  today: string | null;
  limit: string | null;
  /** Whole days as digits (a runway can exceed what a JSON number holds exactly). */
  runway_days: string | null;
  /** What the key's own quota leaves (absent or null: no quota), in `key_unit` (null: not stated). */
  key_left?: string | null;
  key_unit?: string | null;
  /** A few words when today is anomalous (a spike), else null or absent. */
  alert?: string | null;
}

/** The gateway and credential a statusline is for: its cache is theirs alone. */
export interface StatuslineIdentity {
  profile: string;
  baseUrl: URL;
  secret: string;
}

export const DEFAULT_FORMAT = '{balance} · today {today}/{limit} ({percent}) · {runway}';
/** The default line inside an agent's status bar (a session on stdin): the model and this session's spend first. */
export const AGENT_FORMAT = '{model} · {session} · {balance} · today {today}/{limit} ({percent}) · {runway}';

/** What an agent's session adds to the line: {model}, {dir} and {session}. */
export interface SessionValues {
  model?: string;
  dir?: string;
  /** What the key spent since the session began, as last fetched; undefined while not fetched yet. */
  spend?: { spent: string; currency: string; complete: boolean };
}
export const DEFAULT_MAX_AGE = 60;
/** A refresh that has held the lock this long has died. */
const LOCK_STALE_MS = 60_000;

/** Whose cache: the status line's, or the guard's (each with its own lock and remembered failure). */
export type CacheKind = 'statusline' | 'guard';

export function statuslinePath(stateDir: string, who: StatuslineIdentity, kind: CacheKind = 'statusline'): string {
  return cachePath(stateDir, `${kind}-${who.profile}`, who.baseUrl, who.secret);
}

/** The cache is a few hundred bytes; anything much larger is not one tally wrote. */
const MAX_CACHE_BYTES = 64 * 1024;

/** The cached figures, when the file holds exactly what tally writes for this identity (anything else is no cache). */
export function readFigures(stateDir: string, who: StatuslineIdentity): StatuslineFigures | undefined {
  let file: unknown;
  try {
    file = JSON.parse(readOwnStateFile(statuslinePath(stateDir, who), MAX_CACHE_BYTES).toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof file !== 'object' || file === null) return undefined;
  const f = file as Record<string, unknown>;
  const decimal = (v: unknown) => isKeptDecimal(v);
  const ok =
    f.base_url === who.baseUrl.href &&
    f.profile === who.profile &&
    f.credential_id === credentialId(who.secret) &&
    typeof f.fetched_at === 'string' &&
    Number.isFinite(Date.parse(f.fetched_at)) &&
    typeof f.currency === 'string' &&
    /^[A-Z]{3}$/.test(f.currency) &&
    decimal(f.balance) &&
    (f.today === null || decimal(f.today)) &&
    (f.limit === null || decimal(f.limit)) &&
    (f.runway_days === null || (typeof f.runway_days === 'string' && /^\d{1,400}$/.test(f.runway_days))) &&
    (f.key_left === undefined || f.key_left === null || decimal(f.key_left)) &&
    (f.key_unit === undefined || f.key_unit === null || (typeof f.key_unit === 'string' && /^[A-Z]{3}$/.test(f.key_unit))) &&
    (f.alert === undefined || f.alert === null || (typeof f.alert === 'string' && /^[ -~\u00a5\u00d7,.]{1,60}$/.test(f.alert)));
  return ok ? (f as unknown as StatuslineFigures) : undefined;
}

/** Text from an agent's input, for one cell of the line: controls escaped, at most 40 characters. */
function sessionText(text: string): string {
  const safe = escapeControl(text);
  return safe.length > 40 ? `${safe.slice(0, 39)}…` : safe;
}

/**
 * The line for a template: {balance} {today} {limit} {percent} {runway} {profile} {key_left}
 * {alert}, and with an agent's session {model} {dir} {session}; unknown placeholders stay as
 * written.
 */
export function formatStatusline(figures: StatuslineFigures, template: string, stale: boolean, session?: SessionValues, proxy?: { spent: string; refused: number }): string {
  const amount = (value: string | null) => (value === null ? '—' : formatAmount(value, 'account', { currency: figures.currency }));
  const values = new Map<string, string>([
    ['balance', amount(figures.balance)],
    ['today', amount(figures.today)],
    ['limit', amount(figures.limit)],
    ['percent', figures.today !== null && figures.limit !== null ? formatShare(figures.today, figures.limit) : '—'],
    ['runway', figures.runway_days === null ? '—' : `${figures.runway_days}d`],
    ['profile', figures.profile],
    // In the unit the token record states; a bare number followed by "units" where it states none.
    ['key_left', figures.key_left == null ? '—' : formatAmount(figures.key_left, 'account', { currency: figures.key_unit ?? 'units' })],
    // Empty unless today is anomalous: a template can hold it without showing anything most days.
    ['alert', figures.alert ?? ''],
    ['model', session?.model === undefined ? '—' : sessionText(session.model)],
    ['dir', session?.dir === undefined ? '—' : sessionText(trimEnd(session.dir, '/').split('/').pop() || '/')],
    // Labelled as the key's: every call the key made since the session began, this session's or not.
    ['session', session?.spend === undefined ? '—' : `session ${session.spend.complete ? '' : '≥'}${formatAmount(session.spend.spent, 'account', { currency: session.spend.currency })} (key)`],
    // Empty unless a tally proxy runs for the profile: what went through it (booked, else estimated) and what it refused.
    ['proxy', proxy ? `proxy ${formatAmount(proxy.spent, 'account', { currency: figures.currency })}${proxy.refused ? ` (${proxy.refused} refused)` : ''}` : ''],
  ]);
  // The default line shows what the credential has: a device token no key figures, a key without a daily limit no share of one (never `—/— (—)`).
  const line =
    template === DEFAULT_FORMAT || template === AGENT_FORMAT
      ? [
          template === AGENT_FORMAT && session?.model !== undefined && values.get('model'),
          template === AGENT_FORMAT && session?.spend !== undefined && values.get('session'),
          values.get('balance'),
          figures.today !== null && `today ${values.get('today')}${figures.limit !== null ? `/${values.get('limit')} (${values.get('percent')})` : ''}`,
          figures.runway_days !== null && values.get('runway'),
          values.get('proxy'),
        ].filter(Boolean).join(' \u00b7 ')
      : // A Map, not an object: `{constructor}` or `{__proto__}` is an unknown placeholder, not JavaScript's.
        template.replace(/\{(\w+)\}/g, (whole, name: string) => values.get(name) ?? whole);
  return stale ? `${line} (stale)` : line;
}

/** Whether what was written at `at` (ISO 8601) is younger than `maxAge` seconds: a cache, a session's spend, a failure remembered (a minute of clock skew allowed). */
export function isFresh(at: string, now: number, maxAge: number): boolean {
  const age = now - Date.parse(at);
  return age >= -60_000 && age <= maxAge * 1000;
}

/** What a prompt shows when the gateway failed or hung and there is nothing cached: a few characters. */
export const OFFLINE_MARKER = 'offline';

function failurePath(stateDir: string, who: StatuslineIdentity, kind: CacheKind): string {
  return `${statuslinePath(stateDir, who, kind)}.failed`;
}

/** Remembers that asking the gateway failed (or hung) now: a prompt does not wait on it again within --max-age. */
export function rememberFailure(stateDir: string, who: StatuslineIdentity, now: number, kind: CacheKind = 'statusline'): void {
  try {
    const path = failurePath(stateDir, who, kind);
    process.getBuiltinModule('node:fs').mkdirSync(path.slice(0, path.lastIndexOf('/')), { recursive: true, mode: 0o700 });
    const fd = openSync(path, 'w', 0o600);
    writeSync(fd, JSON.stringify({ failed_at: new Date(now).toISOString(), base_url: who.baseUrl.href, credential_id: credentialId(who.secret) }));
    closeSync(fd);
  } catch {
    // Not remembered: the next prompt asks again.
  }
}

/** Whether asking this gateway failed within the last `maxAgeSeconds`. */
export function failedRecently(stateDir: string, who: StatuslineIdentity, now: number, maxAgeSeconds: number, kind: CacheKind = 'statusline'): boolean {
  try {
    const file = JSON.parse(readOwnStateFile(failurePath(stateDir, who, kind), 4096).toString('utf8')) as Record<string, unknown>;
    return file.base_url === who.baseUrl.href && file.credential_id === credentialId(who.secret) && typeof file.failed_at === 'string' && isFresh(file.failed_at, now, maxAgeSeconds);
  } catch {
    return false;
  }
}

/** A success forgets the failure. */
export function forgetFailure(stateDir: string, who: StatuslineIdentity, kind: CacheKind = 'statusline'): void {
  try {
    unlinkSync(failurePath(stateDir, who, kind));
  } catch {
    // None.
  }
}

/** Takes the refresh lock; false when another refresh holds it (and is not dead). */
export function takeRefreshLock(stateDir: string, who: StatuslineIdentity, now: number, kind: CacheKind = 'statusline', retried = false): boolean {
  const path = `${statuslinePath(stateDir, who, kind)}.lock`;
  try {
    const fd = openSync(path, 'wx', 0o600);
    writeSync(fd, String(process.pid));
    closeSync(fd);
    return true;
  } catch (error) {
    // A first run: the cache folder is made (private, as every state folder) and the lock taken there.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' && !retried) {
      try {
        process.getBuiltinModule('node:fs').mkdirSync(path.slice(0, path.lastIndexOf('/')), { recursive: true, mode: 0o700 });
      } catch {
        return false;
      }
      return takeRefreshLock(stateDir, who, now, kind, true);
    }
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return false;
    try {
      if (now - statSync(path).mtimeMs < LOCK_STALE_MS) return false;
      unlinkSync(path);
      return takeRefreshLock(stateDir, who, now, kind);
    } catch {
      return false;
    }
  }
}

export function releaseRefreshLock(stateDir: string, who: StatuslineIdentity, kind: CacheKind = 'statusline'): void {
  try {
    unlinkSync(`${statuslinePath(stateDir, who, kind)}.lock`);
  } catch {
    // Gone already.
  }
}

/**
 * The background refresh's run (the hidden --refresh of the status line and the guard), one
 * policy for both: fetch and keep; a failure remembered, so the foreground does not wait on the
 * gateway again within its --max-age; the refresh lock released whatever happened. Nobody waits
 * for it: it says nothing.
 */
export async function runRefresh(stateDir: string, who: StatuslineIdentity | undefined, now: () => number, kind: CacheKind, refresh: () => Promise<void>): Promise<void> {
  try {
    await refresh();
  } catch {
    if (who) rememberFailure(stateDir, who, now(), kind);
  } finally {
    if (who) releaseRefreshLock(stateDir, who, kind);
  }
}
