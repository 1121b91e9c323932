// What a command gets: its streams, its settings and credential, and an API client, each
// built only when first asked for, so `--help` touches no config and no network.
import { Interrupted, TimeoutError, UsageError } from './errors.js';
import type { IO } from './io.js';
// Settings and the HTTP core are imported statically: every command that runs needs them.
// The transport (node:http), conf, undici and the tables load only when used.
import { HttpClient, type RetryPolicy } from './api/http.js';
import type { Transport } from './api/transport.js';
import { type ResolvedSettings, profileName, resolveSettings } from './settings/resolve.js';
import { stateDirFor } from './settings/state-dir.js';
import type { SettingsStore } from './settings/store.js';

export interface GlobalOptions {
  json: boolean;
  csv: boolean;
  /** Seconds for the whole command. */
  timeout: number;
  debug: boolean;
  profile?: string;
  baseUrl?: string;
  demo: boolean;
  allowHttp: boolean;
}

export interface ContextInit {
  io: IO;
  options: GlobalOptions;
  env: NodeJS.ProcessEnv;
  /** Swapped in tests (undici MockAgent); the default picks node:http or a proxy agent. */
  transport?: Transport;
  retry?: RetryPolicy;
  now?: () => number;
  random?: () => number;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Aborted with an Interrupted reason on Ctrl-C. */
  interrupt?: AbortSignal;
}

export class Context {
  readonly io: IO;
  readonly options: GlobalOptions;
  readonly env: NodeJS.ProcessEnv;
  readonly now: () => number;
  readonly random: () => number;
  readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Aborts at the deadline (reason TimeoutError-like) or on Ctrl-C (reason Interrupted). */
  readonly signal: AbortSignal;
  readonly deadline: number;
  /** Aborted on Ctrl-C only (long-running commands such as the sandbox wait on it). */
  readonly interrupt: AbortSignal;
  readonly #init: ContextInit;
  readonly #disposers: (() => Promise<void> | void)[] = [];
  #stateDir?: Promise<string>;
  #store?: Promise<SettingsStore>;
  #settings?: Promise<ResolvedSettings>;
  #clients = new Map<string, Promise<HttpClient>>();
  #demo?: Promise<{ baseUrl: string; apiKey: string }>;
  #deadlineTimer: NodeJS.Timeout;

  constructor(init: ContextInit) {
    this.#init = init;
    this.io = init.io;
    this.options = init.options;
    this.env = init.env;
    this.now = init.now ?? Date.now;
    this.random = init.random ?? Math.random;
    const sleep = init.sleep ?? abortableSleep;
    this.sleep = (ms, signal) => sleep(ms, signal ?? this.signal);
    this.deadline = this.now() + init.options.timeout * 1000;
    const deadline = new AbortController();
    this.#deadlineTimer = setTimeout(() => deadline.abort(new Error('deadline')), init.options.timeout * 1000);
    this.#deadlineTimer.unref();
    this.interrupt = init.interrupt ?? new AbortController().signal;
    this.signal = AbortSignal.any([deadline.signal, this.interrupt]);
  }

  /** Points this run at an in-process sandbox gateway (`tally demo`, `--demo`). */
  useDemo(): void {
    if (this.#settings) throw new Error('useDemo() must come before settings are resolved');
    this.options.demo = true;
  }

  /** The error that says why the command was stopped (Ctrl-C or --timeout). */
  abortError(): Interrupted | TimeoutError {
    if (this.signal.reason instanceof Interrupted) return this.signal.reason;
    return new TimeoutError(`timed out after ${this.options.timeout}s`);
  }

  stateDir(): Promise<string> {
    this.#stateDir ??= stateDirFor(this.env);
    return this.#stateDir;
  }

  store(): Promise<SettingsStore> {
    this.#store ??= (async () => {
      const { SettingsStore } = await import('./settings/store.js');
      return SettingsStore.open(await this.stateDir());
    })();
    return this.#store;
  }

  settings(): Promise<ResolvedSettings> {
    this.#settings ??= (async () => {
      if (this.options.demo) {
        const demo = await this.#demoGateway();
        return {
          ...profileName({ flags: this.options, env: this.env }),
          baseUrl: new URL(demo.baseUrl),
          baseUrlSource: 'demo',
          credential: { kind: 'api-key', secret: demo.apiKey, source: 'demo' },
          record: undefined,
        } satisfies ResolvedSettings;
      }
      return resolveSettings({ flags: this.options, env: this.env, openStore: () => this.store() });
    })();
    return this.#settings;
  }

  /** The API client for the resolved base URL and credential. */
  client(): Promise<HttpClient> {
    return this.#client('default', async () => {
      const settings = await this.settings();
      const baseUrl = requireBaseUrl(settings);
      let credential = settings.credential;
      if (credential?.kind === 'device-token') {
        const { freshDeviceCredential } = await import('./settings/device-refresh.js');
        credential = await freshDeviceCredential(this, settings, baseUrl);
      }
      return { baseUrl, credential };
    });
  }

  /** A client for an explicit base URL and credential (login verifies before it stores). */
  clientFor(key: string, baseUrl: URL, credential: ResolvedSettings['credential']): Promise<HttpClient> {
    return this.#client(key, async () => ({ baseUrl, credential }));
  }

  #client(key: string, target: () => Promise<{ baseUrl: URL; credential: ResolvedSettings['credential'] }>): Promise<HttpClient> {
    let client = this.#clients.get(key);
    if (!client) {
      client = (async () => {
        const { baseUrl, credential } = await target();
        return new HttpClient({
          baseUrl,
          credential: credential && { kind: credential.kind, secret: credential.secret },
          transport: this.#init.transport ?? this.#lazyTransport(),
          signal: this.signal,
          deadline: this.deadline,
          timeoutSeconds: this.options.timeout,
          log: this.options.debug ? (line) => this.debug(line) : undefined,
          sleep: this.sleep,
          random: this.random,
          now: this.now,
          retry: this.#init.retry,
          userAgent: `tally/${typeof __TALLY_VERSION__ === 'string' ? __TALLY_VERSION__ : 'dev'}`,
        });
      })();
      this.#clients.set(key, client);
    }
    return client;
  }

  /** node:http (or the proxy agent) loads on the first request, not before: a cached answer needs neither. */
  #lazyTransport(): Transport {
    let transport: Promise<Transport> | undefined;
    return async (request) => {
      transport ??= import('./api/transport.js').then(({ defaultTransport }) => defaultTransport(this.env));
      return (await transport)(request);
    };
  }

  debug(line: string): void {
    if (this.options.debug) this.io.err(`[debug] ${line}\n`);
  }

  warn(message: string): void {
    this.io.err(`warning: ${message}\n`);
  }

  onDispose(dispose: () => Promise<void> | void): void {
    this.#disposers.push(dispose);
  }

  async dispose(): Promise<void> {
    clearTimeout(this.#deadlineTimer);
    for (const dispose of this.#disposers.splice(0).reverse()) await dispose();
  }

  #demoGateway(): Promise<{ baseUrl: string; apiKey: string }> {
    this.#demo ??= (async () => {
      const { startSandbox } = await import('./sandbox/server.js');
      const sandbox = await startSandbox({ port: 0 });
      this.onDispose(() => sandbox.close());
      return { baseUrl: sandbox.baseUrl, apiKey: sandbox.demoKey };
    })();
    return this.#demo;
  }
}

function requireBaseUrl(settings: ResolvedSettings): URL {
  if (settings.baseUrl) return settings.baseUrl;
  throw new UsageError(
    `no base URL for profile "${settings.profile}": pass --base-url URL, set TALLY_BASE_URL, or run \`tally login --base-url URL\` (try --demo for the built-in sandbox)`,
  );
}

function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

declare global {
  // Replaced by the build with the package version.
  const __TALLY_VERSION__: string;
}
