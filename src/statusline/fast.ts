// `tally statusline` from its cache, before the command-line machinery loads: a prompt runs it on
// every line, so a fresh cache is answered in the time it takes to read one small file. Anything
// this path does not recognise (another flag, no cache, a cache for another gateway) goes to the
// full command.
import { stateDirFor } from '../settings/state-dir.js';
import { DEFAULT_FORMAT, DEFAULT_MAX_AGE, formatStatusline, readFigures, takeRefreshLock } from './cache.js';

/** True when the line was printed from the cache (a stale one also starts a refresh). */
export async function statuslineFromCache(argv: string[], env: NodeJS.ProcessEnv, write: (text: string) => void): Promise<boolean> {
  let format = DEFAULT_FORMAT;
  let maxAge = DEFAULT_MAX_AGE;
  let profile = env.TALLY_PROFILE || 'default';
  for (let i = 1; i < argv.length; i++) {
    const [flag, inline] = argv[i]!.split(/=(.*)/s, 2) as [string, string | undefined];
    const value = inline ?? argv[++i];
    if (value === undefined) return false;
    if (flag === '--format') format = value;
    else if (flag === '--max-age' && /^\d{1,9}$/.test(value)) maxAge = Number(value);
    else if (flag === '--profile') profile = value;
    else return false;
  }
  if (!/^[\w.@-]{1,64}$/.test(profile)) return false;
  const stateDir = await stateDirFor(env);
  const figures = readFigures(stateDir, profile);
  if (!figures) return false;
  // A cache for another gateway than the one this environment names is no answer.
  if (env.TALLY_BASE_URL && !sameUrl(env.TALLY_BASE_URL, figures.base_url)) return false;
  const now = Date.now();
  const age = now - Date.parse(figures.fetched_at);
  const fresh = age >= -60_000 && age <= maxAge * 1000;
  write(`${formatStatusline(figures, format, !fresh)}\n`);
  if (!fresh) refreshInBackground(stateDir, profile, now);
  return true;
}

function sameUrl(a: string, b: string): boolean {
  try {
    return new URL(a).href === new URL(b).href;
  } catch {
    return false;
  }
}

/** Starts `tally statusline --refresh` detached (at most one at a time) and does not wait for it. */
export function refreshInBackground(stateDir: string, profile: string, now: number): void {
  if (!takeRefreshLock(stateDir, profile, now)) return;
  const bin = process.argv[1];
  if (!bin) return;
  try {
    // node:child_process costs a few ms to load: only a stale cache needs it.
    const { spawn } = process.getBuiltinModule('node:child_process');
    const child = spawn(process.execPath, [bin, '--profile', profile, 'statusline', '--refresh'], { detached: true, stdio: 'ignore', env: { ...process.env, TALLY_CONFIG_DIR: stateDir } });
    child.on('error', () => undefined);
    child.unref();
  } catch {
    // A prompt never shows an error: the next run tries again.
  }
}
