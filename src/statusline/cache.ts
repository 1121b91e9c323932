// The statusline's cache: the last figures fetched for a profile, one small file in the state
// folder (cache/statusline-<profile>.json), and a lock so that at most one refresh runs at a
// time. This module is what a prompt pays for on every keystroke: it loads nothing else of tally
// but the number formatting.
import { closeSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { formatAmount } from '../output/money.js';

export interface StatuslineFigures {
  base_url: string;
  profile: string;
  /** ISO 8601. */
  fetched_at: string;
  currency: string;
  balance: string;
  /** The key's spend today and daily limit; null for a device token or a key without them. */
  today: string | null;
  limit: string | null;
  runway_days: number | null;
}

export const DEFAULT_FORMAT = '{balance} · today {today}/{limit} ({percent}) · {runway}';
export const DEFAULT_MAX_AGE = 60;
/** A refresh that has held the lock this long has died. */
const LOCK_STALE_MS = 60_000;

export function statuslinePath(stateDir: string, profile: string): string {
  return join(stateDir, 'cache', `statusline-${profile}.json`);
}

const DECIMAL = /^-?\d{1,100}(\.\d{1,100})?$/;

/** The cached figures, when the file holds exactly what tally writes (anything else is no cache). */
export function readFigures(stateDir: string, profile: string): StatuslineFigures | undefined {
  let file: unknown;
  try {
    file = JSON.parse(readFileSync(statuslinePath(stateDir, profile), 'utf8'));
  } catch {
    return undefined;
  }
  if (typeof file !== 'object' || file === null) return undefined;
  const f = file as Record<string, unknown>;
  const decimal = (v: unknown) => typeof v === 'string' && DECIMAL.test(v);
  const ok =
    typeof f.base_url === 'string' &&
    f.profile === profile &&
    typeof f.fetched_at === 'string' &&
    Number.isFinite(Date.parse(f.fetched_at)) &&
    typeof f.currency === 'string' &&
    /^[A-Z]{3}$/.test(f.currency) &&
    decimal(f.balance) &&
    (f.today === null || decimal(f.today)) &&
    (f.limit === null || decimal(f.limit)) &&
    (f.runway_days === null || (typeof f.runway_days === 'number' && Number.isSafeInteger(f.runway_days) && f.runway_days >= 0));
  return ok ? (f as unknown as StatuslineFigures) : undefined;
}

/** `25%`: the share of the daily limit spent, whole percent (rounded down), from the exact text. */
function percentOf(today: string, limit: string): string {
  // Scaled to whole units of 1e-100 to divide exactly without a decimal library.
  const scaled = (text: string) => {
    const [whole = '0', fraction = ''] = text.replace('-', '').split('.');
    return BigInt(whole + fraction.padEnd(100, '0')) * (text.startsWith('-') ? -1n : 1n);
  };
  const l = scaled(limit);
  if (l <= 0n) return '—';
  return `${(scaled(today) * 100n) / l}%`;
}

/** The line for a template: {balance} {today} {limit} {percent} {runway} {profile}; unknown placeholders stay as written. */
export function formatStatusline(figures: StatuslineFigures, template: string, stale: boolean): string {
  const amount = (value: string | null) => (value === null ? '—' : formatAmount(value, 'account', { currency: figures.currency }));
  const values: Record<string, string> = {
    balance: amount(figures.balance),
    today: amount(figures.today),
    limit: amount(figures.limit),
    percent: figures.today !== null && figures.limit !== null ? percentOf(figures.today, figures.limit) : '—',
    runway: figures.runway_days === null ? '—' : `${figures.runway_days}d`,
    profile: figures.profile,
  };
  const line = template.replace(/\{(\w+)\}/g, (whole, name: string) => values[name] ?? whole);
  return stale ? `${line} (stale)` : line;
}

/** Takes the refresh lock; false when another refresh holds it (and is not dead). */
export function takeRefreshLock(stateDir: string, profile: string, now: number): boolean {
  const path = `${statuslinePath(stateDir, profile)}.lock`;
  try {
    const fd = openSync(path, 'wx', 0o600);
    writeSync(fd, String(process.pid));
    closeSync(fd);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return false;
    try {
      if (now - statSync(path).mtimeMs < LOCK_STALE_MS) return false;
      unlinkSync(path);
      return takeRefreshLock(stateDir, profile, now);
    } catch {
      return false;
    }
  }
}

export function releaseRefreshLock(stateDir: string, profile: string): void {
  try {
    unlinkSync(`${statuslinePath(stateDir, profile)}.lock`);
  } catch {
    // Gone already.
  }
}
