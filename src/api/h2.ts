// HTTP/2 where an https origin offers it (ALPN): one TLS connection per origin carries every
// request of a command at once, up to the server's SETTINGS_MAX_CONCURRENT_STREAMS (more wait
// for a stream to end). The first request to an origin opens a TLS connection offering h2 and
// http/1.1; when the server picks http/1.1 that same connection is handed to the HTTP/1.1 pool
// (no handshake wasted) and the origin is spoken to over HTTP/1.1 for the rest of the run. A
// session the server ends (GOAWAY, a reset connection) is dropped and the next request opens a
// new one; a request the server refused before answering (REFUSED_STREAM, GOAWAY past its
// stream) is sent once more on a new session. node:http2 loads only for an https origin.
import type { ClientHttp2Session } from 'node:http2';
import type { TLSSocket } from 'node:tls';
import { importExternal } from '../external.js';
import { withAuthorities } from './authorities.js';
import { handshake } from './handshake.js';
import { untilAborted } from '../abortable.js';
import { type Session, sendOnSession } from './h2-stream.js';

import { MAX_STREAMS_TOGETHER, STREAMS_BEFORE_SETTINGS, type TogetherOptions, type TransportRequest, type TransportResponse } from './transport-types.js';

/** What a connection offering both protocols turned out to speak. */
type Opened = { kind: 'h2'; entry: Session } | { kind: 'http/1.1' };

const WINDOW = 16 * 1024 * 1024;

/** How long `together` waits for the server's SETTINGS after its handshake. */
const SETTINGS_WAIT_MS = 250;

/** Connections opened at once to an origin whose protocol is not known yet (HTTP/1.1's own limit). */
const MAX_PROBES = 4;

export interface H2Pool {
  /** The answer over HTTP/2, or undefined when the origin speaks HTTP/1.1 (the caller's pool sends it, on the connection left for it). */
  request(request: TransportRequest): Promise<TransportResponse | undefined>;
  /**
   * How many requests to `origin` go out at once over HTTP/2 (its session's stream limit, at most
   * MAX_STREAMS_TOGETHER), or undefined where it speaks HTTP/1.1 or nothing says yet. While the
   * first connection's handshake is under way, its answer (ALPN) is waited for: a round trip
   * before the first response, so a first run's requests that wait on it still go out in round one.
   */
  together(origin: URL, options?: TogetherOptions): Promise<number | undefined>;
  /** The TLS context every connection uses where TALLY_CA_FILE adds authorities (undefined: the system's). */
  secureContext(): Promise<import('node:tls').SecureContext | undefined>;
  /** A connection the ALPN probe opened and HTTP/1.1 was chosen on, for the HTTP/1.1 pool to use first. */
  takeSpare(origin: string): TLSSocket | undefined;
  close(): void;
}

export function h2Pool(options: PoolOptions): H2Pool {
  return new H2Sessions(options);
}

type PoolOptions = { ca?: string; memory?: import('../settings/protocols.js').ProtocolMemory };

/** The sessions of a run, one per origin that speaks HTTP/2, and what each origin was found to speak. */
class H2Sessions implements H2Pool {
  readonly #options: PoolOptions;
  /** What each origin speaks, once a connection said so: the session every request shares, or HTTP/1.1. */
  readonly #known = new Map<string, Session | 'http/1.1'>();
  /** Connections being opened to origins not known yet. */
  readonly #probes = new Map<string, Set<Promise<Opened>>>();
  readonly #spare = new Map<string, TLSSocket[]>();
  readonly #sessions = new Set<ClientHttp2Session>();
  // TALLY_CA_FILE's authorities beside the system's: one TLS context for every connection. The
  // context starts from Node's own root store (its certificates parsed once) and adds the file's:
  // handing the roots over as text (`ca: [...rootCertificates, file]`) parses some 150
  // certificates again, 40-100 ms of every run, and again for each connection given its own.
  #context: import('node:tls').SecureContext | undefined;

  constructor(options: PoolOptions) {
    this.#options = options;
  }

  #trusted(tls: typeof import('node:tls')): import('node:tls').SecureContext {
    return (this.#context ??= withAuthorities(tls, this.#options.ca!));
  }

  /** A TLS connection offering both protocols, its handshake under the request's deadline. */
  async #connect(url: URL, signal: AbortSignal): Promise<Opened> {
    const [tls, http2] = await Promise.all([importExternal<typeof import('node:tls')>('node:tls'), importExternal<typeof import('node:http2')>('node:http2')]);
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const name = /^[\d.]+$|:/.test(host) ? {} : { servername: host };
    const socket = await handshake(tls, { host, port: Number(url.port || 443), ALPNProtocols: ['h2', 'http/1.1'], ...name, ...(this.#options.ca ? { secureContext: this.#trusted(tls) } : {}) }, signal);
    socket.removeAllListeners('error');
    // Small frames go out at once (no Nagle delay waiting for an ACK), as node:http's own sockets do.
    socket.setNoDelay(true);
    if (socket.alpnProtocol !== 'h2') {
      this.#spare.set(url.origin, [...(this.#spare.get(url.origin) ?? []), socket]);
      this.#known.set(url.origin, 'http/1.1');
      this.#options.memory?.set(url.origin, 'http/1.1');
      return { kind: 'http/1.1' };
    }
    return { kind: 'h2', entry: this.#open(http2, url, socket) };
  }

  /** The session on a connection whose server chose h2: shared by the origin's requests until the server ends it. */
  #open(http2: typeof import('node:http2'), url: URL, socket: TLSSocket): Session {
    // Windows of 16 MB (stream and connection): HTTP/2's default 64 kB would hold the server back
    // a round trip for a window update every 64 kB (a catalog, pages of a log one after another).
    const session = http2.connect(url.origin, { createConnection: () => socket, settings: { initialWindowSize: WINDOW } });
    session.once('connect', () => session.setLocalWindowSize(WINDOW));
    this.#sessions.add(session);
    const settled = new Promise<void>((resolve) => {
      session.once('remoteSettings', () => {
        entry.settingsCame = true;
        resolve();
      });
      session.once('close', () => resolve());
    });
    const entry: Session = { session, active: 0, waiting: [], used: false, settled, settingsCame: false };
    if (!this.#known.has(url.origin)) this.#known.set(url.origin, entry);
    this.#options.memory?.set(url.origin, 'h2');
    const forget = () => {
      this.#sessions.delete(session);
      // The next request opens a new session (and learns the protocol again).
      if (this.#known.get(url.origin) === entry) this.#known.delete(url.origin);
    };
    session.on('error', forget);
    session.on('close', forget);
    session.on('goaway', forget);
    session.unref();
    return entry;
  }

  /**
   * The session a request goes on, or 'http/1.1'. While an origin's protocol is not known, one
   * connection offering both is opened and the requests sent with it wait for its answer (ALPN):
   * an HTTP/2 server gets one connection for all of them. Where an earlier run saw HTTP/1.1, the
   * requests sent together each open one (up to MAX_PROBES, as HTTP/1.1 would), so an HTTP/1.1
   * server costs no round trip more; the server's answer decides either way.
   */
  async #sessionFor(url: URL, signal: AbortSignal): Promise<Session | 'http/1.1'> {
    await this.#options.memory?.load();
    // What an earlier run learned: HTTP/2 on one connection shared from the start. A connection
    // always offers both, so what the server picks now is what is spoken (a hint, never a choice).
    const remembered = this.#options.memory?.get(url.origin);
    for (;;) {
      const said = this.#known.get(url.origin);
      if (said) return said;
      const open = this.#probes.get(url.origin) ?? new Set<Promise<Opened>>();
      this.#probes.set(url.origin, open);
      if (open.size >= (remembered === 'http/1.1' ? MAX_PROBES : 1)) {
        await untilAborted(Promise.race([...open]).catch(() => undefined), signal);
        continue;
      }
      const probe = this.#connect(url, signal);
      open.add(probe);
      try {
        const opened = await probe;
        return opened.kind === 'h2' ? opened.entry : 'http/1.1';
      } finally {
        open.delete(probe);
      }
    }
  }

  async request(request: TransportRequest): Promise<TransportResponse | undefined> {
    for (let attempt = 1; ; attempt++) {
      const entry = await this.#sessionFor(request.url, request.signal);
      if (entry === 'http/1.1') return undefined;
      try {
        return await sendOnSession(entry, request);
      } catch (error) {
        // Refused before any answer (a GOAWAY past this stream, REFUSED_STREAM, a session ended): once more on a new session.
        const code = (error as NodeJS.ErrnoException).code ?? '';
        if (attempt > 1 || request.signal.aborted || !/GOAWAY|REFUSED|INVALID_SESSION|SESSION_ERROR|STREAM_CANCEL/.test(`${code} ${(error as Error).message}`)) throw error;
        if (this.#known.get(request.url.origin) === entry) this.#known.delete(request.url.origin);
      }
    }
  }

  async together(origin: URL, togetherOptions?: TogetherOptions): Promise<number | undefined> {
    await this.#options.memory?.load();
    for (;;) {
      const said = this.#known.get(origin.origin);
      if (said === 'http/1.1') return undefined;
      if (said) {
        // The server's SETTINGS follow its handshake at once (they carry its stream limit); a
        // server that has not sent them within a moment is taken at HTTP/1.1's word (never a wait).
        // A caller that does not wait counts on a few streams until they come.
        if (togetherOptions?.settings === false && !said.settingsCame) return said.session.destroyed ? undefined : STREAMS_BEFORE_SETTINGS;
        let timer: NodeJS.Timeout | undefined;
        const came = await Promise.race([said.settled.then(() => true), new Promise<boolean>((resolve) => (timer = setTimeout(resolve, SETTINGS_WAIT_MS, false)))]);
        clearTimeout(timer);
        if (!came || said.session.destroyed) return undefined;
        return Math.max(1, Math.min(said.session.remoteSettings?.maxConcurrentStreams ?? MAX_STREAMS_TOGETHER, MAX_STREAMS_TOGETHER));
      }
      const open = this.#probes.get(origin.origin);
      // Nothing asked yet: what an earlier run learned (a request opens the session when it goes).
      if (!open?.size) return this.#options.memory?.get(origin.origin) === 'h2' ? MAX_STREAMS_TOGETHER : undefined;
      await Promise.race([...open]).catch(() => undefined);
    }
  }

  async secureContext(): Promise<import('node:tls').SecureContext | undefined> {
    return this.#options.ca ? this.#trusted(await importExternal<typeof import('node:tls')>('node:tls')) : undefined;
  }

  takeSpare(origin: string): TLSSocket | undefined {
    return this.#spare.get(origin)?.shift();
  }

  close(): void {
    for (const session of this.#sessions) session.destroy();
    for (const sockets of this.#spare.values()) for (const socket of sockets) socket.destroy();
  }
}
