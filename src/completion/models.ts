// The model names `whatif --swap <Tab>` offers: from the price catalog tally last cached for the
// gateway of the profile in use (no request: a Tab never waits on the network). Loaded only by the
// full program, for that one flag: the fast completion bundle stays small.
import { join } from 'node:path';
import { readStateFile } from '../settings/read-file.js';
import { stateDirFor } from '../settings/state-dir.js';

/** Whether the word being completed is the value of --swap. */
export function wantsModelNames(words: string[]): boolean {
  return words.length >= 2 && words[words.length - 2] === '--swap';
}

/** The cached catalog's model names for the profile the words name (none when nothing is cached). */
export async function cachedModelNames(words: string[], env: NodeJS.ProcessEnv): Promise<string[]> {
  try {
    const dir = await stateDirFor(env);
    let base = env.TALLY_BASE_URL;
    if (!base) {
      const config = JSON.parse(readStateFile(join(dir, 'config.json'), 4 * 1024 * 1024).toString('utf8')) as { profiles?: Record<string, { base_url?: string }> };
      const { profileOf } = await import('./complete.js');
      const profile = profileOf(words, env, dir);
      base = config.profiles && Object.hasOwn(config.profiles, profile) ? config.profiles[profile]!.base_url : undefined;
    }
    if (!base) return [];
    const { readCachedListing } = await import('../settings/pricing-cache.js');
    return [...new Set(readCachedListing(dir, new URL(base))?.rows.map((r) => r.name) ?? [])].sort();
  } catch {
    return [];
  }
}
