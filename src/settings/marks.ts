// Marks: the spend counters at the start of a CI job (`tally mark`), read back at its end
// (`check --max-run-spend`). Small JSON with a version, written atomically, 0600; in the state
// folder keyed by profile, gateway and credential (a hash), or in a file the job names. A mark
// that is missing, not one tally wrote, or made for another profile or gateway is refused (exit 2)
// with the command that makes one.
import { join } from 'node:path';
import { UsageError } from '../errors.js';
import { checkName } from '../domain/budget.js';
import { isDecimalString } from '../domain/decimal-text.js';
import type { SpendReading } from '../domain/run-spend.js';
import { cacheFileId, credentialId } from './cache-key.js';
import { ensurePrivateDir, writeFileAtomic } from './files.js';
import { readStateFile } from './read-file.js';

export const MARK_VERSION = 1;

export interface Mark {
  version: number;
  name: string;
  profile: string;
  base_url: string;
  credential_id: string;
  currency: string;
  /** When it was made (Unix seconds) and the same as ISO 8601. */
  at: number;
  at_iso: string;
  lifetime_spend: string;
  /** The key's counter and the grid day (its start, Unix seconds) it belongs to; null for a device token. */
  key: { daily_cost_used: string; day: number } | null;
  /** `mark --fail-open` could not read the counters: why (then no currency, spend or key). */
  not_taken?: string;
}

export function readingOf(mark: Mark): SpendReading {
  return { lifetimeSpend: mark.lifetime_spend, key: mark.key && { dailyCostUsed: mark.key.daily_cost_used, day: mark.key.day } };
}

export function markOf(reading: SpendReading): Pick<Mark, 'lifetime_spend' | 'key'> {
  return { lifetime_spend: reading.lifetimeSpend, key: reading.key && { daily_cost_used: reading.key.dailyCostUsed, day: reading.key.day } };
}

export function checkMarkName(name: string): string {
  return checkName('mark', name);
}

export function markPath(stateDir: string, name: string, profile: string, baseUrl: URL, secret: string): string {
  return join(stateDir, 'state', `mark-${name}-${profile}-${cacheFileId(baseUrl, secret)}.json`);
}

/** A mark as its file holds it. */
export function markText(mark: Mark): string {
  return `${JSON.stringify(mark, null, 2)}\n`;
}

export function writeMark(path: string, mark: Mark): void {
  ensurePrivateDir(join(path, '..'), { own: true });
  writeFileAtomic(path, [markText(mark)], { durable: true });
}

/** `2026-11-24T17:55:23+08:00`: the form tally writes a mark's time in. */
const ISO_SECOND = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:Z|[+-]\d{2}:\d{2})$/;

/** A mark read back for this profile, gateway and credential; exit 2, saying how to make one, otherwise. */
export function readMark(path: string, expect: { name: string; profile: string; baseUrl: URL; secret: string; makeIt: string }): Mark {
  const refuse = (why: string) => new UsageError(`${why}; make one at the start of the job with \`${expect.makeIt}\``);
  let text: string;
  try {
    text = readStateFile(path, 64 * 1024).toString('utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw refuse(`there is no mark "${expect.name}" (${path})`);
    throw refuse(`the mark ${path} cannot be read (${(error as Error).message})`);
  }
  let mark: Record<string, unknown>;
  try {
    mark = JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw refuse(`${path} is not a mark tally wrote (not JSON)`);
  }
  const decimal = (v: unknown) => typeof v === 'string' && isDecimalString(v);
  const key = mark.key as Record<string, unknown> | null;
  // Every field read back is checked: its text reaches check lines, Markdown and workflow commands.
  const isoOfAt = typeof mark.at_iso === 'string' && ISO_SECOND.test(mark.at_iso) && Date.parse(mark.at_iso) / 1000 === mark.at;
  // `mark --fail-open` that could not read the counters: a reason, and no figures.
  const notTaken = typeof mark.not_taken === 'string' && mark.not_taken.length <= 500 && !/[\u0000-\u001f\u007f-\u009f]/.test(mark.not_taken);
  const figures = notTaken
    ? mark.currency === undefined && mark.lifetime_spend === undefined && mark.key === undefined
    : typeof mark.currency === 'string' && /^[A-Z]{3}$/.test(mark.currency) && decimal(mark.lifetime_spend) && (key === null || (typeof key === 'object' && decimal(key.daily_cost_used) && Number.isSafeInteger(key.day)));
  const wellFormed =
    (mark.not_taken === undefined || notTaken) &&
    figures &&
    mark.version === MARK_VERSION &&
    typeof mark.name === 'string' &&
    /^[a-z0-9][a-z0-9_-]{0,31}$/.test(mark.name) &&
    typeof mark.profile === 'string' &&
    typeof mark.base_url === 'string' &&
    typeof mark.credential_id === 'string' &&
    /^[0-9a-f]{16}$/.test(mark.credential_id) &&
    Number.isSafeInteger(mark.at) &&
    isoOfAt;
  if (!wellFormed) throw refuse(`${path} is not a mark tally wrote (version ${JSON.stringify(mark.version ?? null)})`);
  if (mark.profile !== expect.profile || mark.base_url !== expect.baseUrl.href) {
    throw refuse(`the mark ${path} was made for profile "${String(mark.profile)}" at ${String(mark.base_url)}, not "${expect.profile}" at ${expect.baseUrl.href}`);
  }
  if (mark.credential_id !== credentialId(expect.secret)) throw refuse(`the mark ${path} was made with another credential`);
  return mark as unknown as Mark;
}
