// What each model spent (and which counted tokens) on each settled day, remembered per gateway
// and credential (cache/model-days-<id>.json): what dates a model that started or stopped costing
// money (`anomalies`, `check --anomalies`, a report's findings) without asking again for days
// that are over, and names a past day's spike's models. A day is settled an hour after it ends: the gateway's own cache of aggregates
// lives seconds to minutes, so an answer asked later is the day's last word. It is only a cache:
// a file that is not exactly what tally wrote is ignored, one that cannot be written is skipped.
import { dirname } from 'node:path';
import { cachePath, credentialId } from './cache-key.js';
import { ensurePrivateDir, writeFileAtomic } from './files.js';
import { readStateFile } from './read-file.js';
import { isDecimalString } from '../domain/decimal-text.js';

/** Seconds after a day's end before its answer is remembered. */
export const SETTLED_AFTER = 3600;
/** The most days kept (the newest): two windows of 92 days, and some. */
export const MAX_DAYS = 200;
const MAX_BYTES = 4 * 1024 * 1024;
const MAX_NAME = 500;
const MAX_MODELS = 2000;

/** One day on the gateway's grid: the models that spent money (each with its amount, as the gateway's decimal), and those that counted tokens. */
export interface RememberedDay {
  start: number;
  end: number;
  spent: [model: string, amount: string][];
  tokens: string[];
}

function daysPath(stateDir: string, baseUrl: URL, secret: string): string {
  return cachePath(stateDir, 'model-days', baseUrl, secret);
}

const isTime = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
const isNames = (v: unknown): v is string[] => Array.isArray(v) && v.length <= MAX_MODELS && v.every((n) => typeof n === 'string' && n.length <= MAX_NAME) && new Set(v).size === v.length;
const isSpent = (v: unknown): v is [string, string][] => Array.isArray(v) && v.every((p) => Array.isArray(p) && p.length === 2 && isDecimalString(p[1]) && !p[1].startsWith('-')) && isNames(v.map((p: unknown[]) => p[0]));
const isDay = (d: RememberedDay) => isTime(d.start) && isTime(d.end) && d.end > d.start && d.end - d.start <= 2 * 86_400 && isSpent(d.spent) && isNames(d.tokens);

/** Whether a day may be remembered at `nowSeconds`: over for an hour, of a sane length, and of sane names. */
export function isSettled(day: RememberedDay, nowSeconds: number): boolean {
  return isDay(day) && day.end + SETTLED_AFTER <= nowSeconds;
}

/** The days remembered for this gateway and credential, by start; a day not yet settled at `nowSeconds` is not served (a clock set back). */
export function readModelDays(stateDir: string, baseUrl: URL, secret: string, nowSeconds: number): Map<number, RememberedDay> {
  const days = new Map<number, RememberedDay>();
  try {
    const file = JSON.parse(readStateFile(daysPath(stateDir, baseUrl, secret), MAX_BYTES).toString('utf8')) as Record<string, unknown>;
    if (file.base_url !== baseUrl.href || file.credential_id !== credentialId(secret) || !Array.isArray(file.days) || file.days.length > MAX_DAYS) return days;
    for (const entry of file.days as unknown[]) {
      if (!entry || typeof entry !== 'object') return new Map();
      const { start, end, spent, tokens } = entry as Record<string, unknown>;
      const day = { start, end, spent, tokens } as RememberedDay;
      // One day that is not what tally writes and the file is not tally's: none of it is served.
      if (!isDay(day) || days.has(day.start)) return new Map();
      if (isSettled(day, nowSeconds)) days.set(day.start, day);
    }
    return days;
  } catch {
    return new Map();
  }
}

/**
 * Adds settled days to what is remembered (the newest MAX_DAYS kept); days not settled at
 * `nowSeconds` are left out. Another run's days written meanwhile are kept: read again just
 * before writing. A cache that cannot be written costs the next run its requests, nothing more.
 */
export function rememberModelDays(stateDir: string, baseUrl: URL, secret: string, fresh: RememberedDay[], nowSeconds: number): void {
  const settled = fresh.filter((d) => isSettled(d, nowSeconds));
  if (settled.length === 0) return;
  try {
    const days = readModelDays(stateDir, baseUrl, secret, nowSeconds);
    for (const day of settled) days.set(day.start, { start: day.start, end: day.end, spent: [...day.spent].sort((a, b) => (a[0] < b[0] ? -1 : 1)), tokens: [...day.tokens].sort() });
    const kept = [...days.values()].sort((a, b) => a.start - b.start).slice(-MAX_DAYS);
    const path = daysPath(stateDir, baseUrl, secret);
    ensurePrivateDir(dirname(path), { own: true });
    writeFileAtomic(path, [JSON.stringify({ base_url: baseUrl.href, credential_id: credentialId(secret), days: kept })]);
  } catch {
    // Only a cache.
  }
}
