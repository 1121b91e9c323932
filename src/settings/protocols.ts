// What each gateway's front end speaks over HTTPS (HTTP/2 or HTTP/1.1), learned by a run's first
// connection and kept for a week in the state folder (cache/protocols.json), so that a later run
// sends every request of an HTTP/2 gateway on one connection from the start, and goes straight to
// HTTP/1.1 where that is all there is. What was kept is a hint, never a choice made for the
// server: every new connection still offers both (ALPN), so a front end that changed is learned
// again at its first handshake (an entry for HTTP/1.1 never holds an HTTP/2-only front end off). Best effort: a file that cannot be read or written is a
// run that learns again, never an error. Origins only (no path, no credential).
import { dirname, join } from 'node:path';
import { readOwnStateFile } from './read-file.js';
import { ensurePrivateDir, writeFileAtomic } from './files.js';

export type Protocol = 'h2' | 'http/1.1';

export interface ProtocolMemory {
  load(): Promise<void>;
  get(origin: string): Protocol | undefined;
  set(origin: string, protocol: Protocol): void;
}

const KEPT_MS = 7 * 86_400_000;
const MAX_BYTES = 64 * 1024;
const MAX_ORIGINS = 64;
/** A clock moved back this little still reads the entries it wrote. */
const SKEW_MS = 5 * 60_000;

export function protocolMemory(stateDir: () => Promise<string>, now: () => number): ProtocolMemory {
  let path: string | undefined;
  let known: Record<string, { protocol: Protocol; at: number }> = {};
  let loading: Promise<void> | undefined;
  return {
    load() {
      loading ??= stateDir()
        .then((dir) => {
          path = join(dir, 'cache', 'protocols.json');
          // Read only as the user's own file, never through a link; an entry dated ahead of now is no entry.
          const file = JSON.parse(readOwnStateFile(path, MAX_BYTES).toString('utf8')) as unknown;
          if (typeof file !== 'object' || file === null) return;
          for (const [origin, entry] of Object.entries(file as Record<string, unknown>)) {
            const e = entry as { protocol?: unknown; at?: unknown };
            if ((e?.protocol === 'h2' || e?.protocol === 'http/1.1') && typeof e.at === 'number' && now() - e.at < KEPT_MS && e.at <= now() + SKEW_MS && /^https:\/\/[^/]+$/.test(origin)) known[origin] = { protocol: e.protocol, at: e.at };
          }
        })
        .catch(() => undefined);
      return loading;
    },
    get(origin) {
      return known[origin]?.protocol;
    },
    set(origin, protocol) {
      if (known[origin]?.protocol === protocol) return;
      known[origin] = { protocol, at: now() };
      if (!path) return;
      try {
        const kept = Object.entries(known).sort(([, a], [, b]) => b.at - a.at).slice(0, MAX_ORIGINS);
        known = Object.fromEntries(kept);
        ensurePrivateDir(dirname(path), { own: true });
        writeFileAtomic(path, [JSON.stringify(known)]);
      } catch {
        // Not kept: the next run learns it again.
      }
    },
  };
}
