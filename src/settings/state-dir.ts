// The state folder: everything tally writes lives below it.
import { importExternal } from '../external.js';

/** TALLY_CONFIG_DIR, else the per-OS config folder (the one conf would choose). */
export async function stateDirFor(env: NodeJS.ProcessEnv): Promise<string> {
  const chosen = env.TALLY_CONFIG_DIR;
  if (chosen) return chosen;
  const { default: envPaths } = await importExternal<typeof import('env-paths')>('env-paths');
  return envPaths('tally', { suffix: '' }).config;
}
