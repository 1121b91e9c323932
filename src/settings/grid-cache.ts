// The day grid a gateway was seen to use, remembered per base URL (cache/grid-<url>.json), so
// that commands that cannot infer it from usage buckets (`logs`, `usage --by model`, the
// forecast's "today") lay their days on the same grid as `usage`. It is only a cache: a file
// that does not say exactly what tally wrote is ignored.
import { dirname } from 'node:path';
import { cachePath } from './cache-key.js';
import { ensurePrivateDir, writeFileAtomic } from './files.js';
import { readStateFile } from './read-file.js';

function gridPath(stateDir: string, baseUrl: URL): string {
  return cachePath(stateDir, 'grid', baseUrl);
}

/** Whether a number of seconds is a day grid's offset: whole minutes within UTC-12 to UTC+14. */
export function isDayOffset(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value % 60 === 0 && value >= -12 * 3600 && value <= 14 * 3600;
}

export function readLearnedGrid(stateDir: string, baseUrl: URL): number | undefined {
  try {
    const file = JSON.parse(readStateFile(gridPath(stateDir, baseUrl), 64 * 1024).toString('utf8')) as { base_url?: unknown; day_offset?: unknown };
    return file.base_url === baseUrl.href && isDayOffset(file.day_offset) ? file.day_offset : undefined;
  } catch {
    return undefined;
  }
}

/** Remembers the grid (throws a ConfigError when the state folder cannot be written). */
export function rememberGrid(stateDir: string, baseUrl: URL, dayOffset: number, now: number): void {
  ensurePrivateDir(dirname(gridPath(stateDir, baseUrl)), { own: true });
  writeFileAtomic(gridPath(stateDir, baseUrl), [JSON.stringify({ base_url: baseUrl.href, day_offset: dayOffset, learned_at: new Date(now).toISOString() })]);
}
