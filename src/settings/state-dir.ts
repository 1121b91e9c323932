// The state folder: everything tally writes lives below it.
import { chmodSync, mkdirSync, statSync } from 'node:fs';
import { importExternal } from '../external.js';

/** TALLY_CONFIG_DIR, else the per-OS config folder (the one conf would choose). */
export async function stateDirFor(env: NodeJS.ProcessEnv): Promise<string> {
  const chosen = env.TALLY_CONFIG_DIR;
  if (chosen) return chosen;
  const { default: envPaths } = await importExternal<typeof import('env-paths')>('env-paths');
  return envPaths('tally', { suffix: '' }).config;
}

/** Creates a folder (and missing parents) as 0700; tightens it when tally created it earlier. */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  // mkdir's mode is filtered by the umask, and an older folder may be wider: set it exactly.
  if ((statSync(dir).mode & 0o777) !== 0o700) chmodSync(dir, 0o700);
}
