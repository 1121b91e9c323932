// What `check --notify` remembers between runs: per profile, gateway and credential (the file is
// keyed by them), and within it per destination and condition, the level last notified. Written
// atomically after the messages are sent (a crash in between may at worst send one twice, never
// lose one). A file that is not what tally writes is rebuilt: the caller then records the levels
// of this run without sending, so that nothing is sent twice because of it.
import { join } from 'node:path';
import type { AlertMemory } from '../domain/alerts.js';
import { cacheFileId } from './cache-key.js';
import { ensurePrivateDir, writeFileAtomic } from './files.js';
import { readStateFile } from './read-file.js';

const VERSION = 1;
/** Far more than destinations × conditions ever need: a larger file is not one tally wrote. */
const MAX_STATE_BYTES = 1024 * 1024;

export interface AlertState {
  /** `destination\u0000condition` → what was notified. */
  conditions: Record<string, AlertMemory>;
}

export function alertStatePath(stateDir: string, profile: string, baseUrl: URL, secret: string | undefined): string {
  return join(stateDir, 'state', `alerts-${profile}-${cacheFileId(baseUrl, secret)}.json`);
}

export function alertKey(destination: string, condition: string): string {
  return `${destination}\u0000${condition}`;
}

/** The state as stored; `corrupt` when a file is there that is not one tally wrote. */
export function readAlertState(path: string): { state: AlertState; corrupt: boolean } {
  let text: string;
  try {
    text = readStateFile(path, MAX_STATE_BYTES).toString('utf8');
  } catch (error) {
    return { state: { conditions: {} }, corrupt: (error as NodeJS.ErrnoException).code !== 'ENOENT' };
  }
  try {
    const file = JSON.parse(text) as { version?: unknown; conditions?: unknown };
    if (file.version !== VERSION || typeof file.conditions !== 'object' || file.conditions === null || Array.isArray(file.conditions)) throw new Error('not an alert state');
    const conditions: Record<string, AlertMemory> = Object.create(null);
    for (const [key, value] of Object.entries(file.conditions as Record<string, unknown>)) {
      const v = value as { level?: unknown; period?: unknown };
      if ((v.level !== 'warn' && v.level !== 'fail') || (v.period !== undefined && !Number.isSafeInteger(v.period))) throw new Error('not an alert state');
      conditions[key] = v.period === undefined ? { level: v.level } : { level: v.level, period: v.period as number };
    }
    return { state: { conditions }, corrupt: false };
  } catch {
    return { state: { conditions: {} }, corrupt: true };
  }
}

export function writeAlertState(path: string, state: AlertState): void {
  ensurePrivateDir(join(path, '..'), { own: true });
  writeFileAtomic(path, [JSON.stringify({ version: VERSION, conditions: state.conditions })], { durable: true });
}
