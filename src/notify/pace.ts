// A destination that takes so many messages a minute (a WeCom bot: 20): the times of the last
// sends are kept in the state folder (per destination, keyed by a hash of its URL, never the URL),
// and a send past the rate waits for a free slot within --timeout, or is held back, said.
import { dirname } from 'node:path';
import type { Context } from '../context.js';
import { ServiceError } from '../errors.js';

const WINDOW_MS = 60_000;

export async function withinRate(ctx: Context, what: string, url: string, perMinute: number): Promise<() => void> {
  const [{ cachePath }, { readOwnStateFile }, { writeFileAtomic, ensurePrivateDir }] = await Promise.all([import('../settings/cache-key.js'), import('../settings/read-file.js'), import('../settings/files.js')]);
  const file = cachePath(await ctx.stateDir(), 'notify-pace', new URL('https://notify.invalid/'), url);
  const read = (): number[] => {
    try {
      const sent = JSON.parse(readOwnStateFile(file, 64 * 1024).toString('utf8')) as unknown;
      return Array.isArray(sent) ? sent.filter((t): t is number => typeof t === 'number' && Number.isFinite(t)) : [];
    } catch {
      return [];
    }
  };
  for (;;) {
    const now = ctx.now();
    // A send this machine's clock puts a little ahead (moved back since) still counts; one a window ahead is no send.
    const recent = read().filter((t) => t > now - WINDOW_MS && t <= now + WINDOW_MS).sort((a, b) => a - b);
    if (recent.length < perMinute) {
      // The send counts once made: the caller records it.
      return () => {
        try {
          ensurePrivateDir(dirname(file), { own: true });
          writeFileAtomic(file, [JSON.stringify([...recent, ctx.now()].slice(-perMinute * 2))], { mode: 0o600 });
        } catch {
          // Not remembered: the destination's own limit still answers.
        }
      };
    }
    const free = recent[recent.length - perMinute]! + WINDOW_MS;
    if (free > ctx.deadline) throw new ServiceError(`${what} takes ${perMinute} messages a minute and has had them: this one is held back (the next slot is at ${new Date(free).toISOString().slice(11, 19)} UTC, past --timeout)`);
    ctx.progress(`${what} takes ${perMinute} messages a minute: waiting for the next slot`);
    await ctx.sleep(free - now + 50, ctx.signal);
  }
}
