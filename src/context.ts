// What a command gets: its streams, its settings and credential, and an API client, each
// built only when first asked for, so `--help` touches no config and no network.
import { ConfigError, Interrupted, TimeoutError } from './errors.js';
import type { IO } from './io.js';
// Settings and the HTTP core are imported statically (every command needs them); the transport, conf, undici, tables load when used.
import type { HttpClient, RetryPolicy } from './api/http.js';
import { FigureStore } from './figure-store.js';
import { MAX_CONNECTIONS_PER_ORIGIN, type Transport } from './api/transport-types.js';
import { type ResolvedSettings, type Source, chosenProfile, profileName, requireBaseUrl, resolveSettings } from './settings/resolve.js';
import { stateDirFor } from './settings/state-dir.js';
import type { ProfileRecord, SettingsStore } from './settings/store.js';
import { type Zone, parseZone, throwNotAZone, zoneFromEnv } from './domain/zone.js';
import { Notices } from './notices.js';
import { SecretSet } from './domain/secrets.js';
import { abortableSleep } from './abortable.js';
import { setMaxListeners } from 'node:events';
import type { GlobalOptions } from './global-options.js';
export type { GlobalOptions } from './global-options.js';

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
  /** The run's secrets: what is read here (a stored key, a device token) is added for redaction. */
  secrets?: SecretSet;
  /** Another command by name, loaded lazily (the tour of `tally demo`); set by the CLI, which holds the registry. */
  command?: (name: string) => Promise<RunnableCommand>;
  /**
   * A command line run in this process as the CLI parses it (`tally mcp`), writing to `io`, with
   * this run's global options (changed by `overrides`).
   */
  commandLine?: (argv: string[], io: IO, interrupt: AbortSignal, overrides?: Partial<GlobalOptions>) => Promise<number>;
  /** The in-process demo gateway of an outer run (`tally --demo mcp`): its commands share it. */
  demoGateway?: Promise<DemoGateway>;
}

/** What a command is to another that runs it: its run function. */
export interface RunnableCommand {
  run(options: Record<string, unknown>, ctx: Context, args?: string[]): Promise<void>;
}

/** The in-process sandbox `--demo` runs against. */
export interface DemoGateway {
  baseUrl: string;
  apiKey: string;
}

/** What the in-process demo gateway is known as in the state folder (a name that never resolves). */
const DEMO_IDENTITY = 'http://demo.tally.invalid/';

export class Context extends Notices<GlobalOptions> {
  readonly env: NodeJS.ProcessEnv;
  readonly random: () => number;
  readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Aborts at the deadline (reason TimeoutError-like) or on Ctrl-C (reason Interrupted). */
  signal!: AbortSignal;
  /** Milliseconds since the epoch at which --timeout runs out. */
  deadline!: number;
  /** Aborted on Ctrl-C only (long-running commands such as the sandbox wait on it). */
  readonly interrupt: AbortSignal;
  /** Every secret of the run; whatever leaves the process is scrubbed of them. */
  readonly secrets: SecretSet;
  /** Set by a command that runs another (`tally run`): Ctrl-C is that command's to answer, not an interrupt of tally. */
  signalsHeld = false;
  readonly #init: ContextInit;
  readonly #disposers: (() => Promise<void> | void)[] = [];
  #stateDir?: Promise<string>;
  #store?: Promise<SettingsStore>;
  #settings?: Promise<ResolvedSettings>;
  /** This computation's clients and figures (see figure-store.ts): a new deadline starts another. */
  #run = new FigureStore();
  #demo?: Promise<DemoGateway>;
  #pool?: Promise<import('./api/transport.js').Pool>;
  #rawTransport?: Transport;
  #deadlineTimer?: NodeJS.Timeout;
  #zone?: Zone;
  #record?: Promise<ProfileRecord | undefined>;

  constructor(init: ContextInit) {
    super(init.io, init.options, init.now ?? Date.now);
    this.#init = init;
    this.env = init.env;
    this.random = init.random ?? Math.random;
    const sleep = init.sleep ?? abortableSleep;
    this.sleep = (ms, signal) => sleep(ms, signal ?? this.signal);
    this.interrupt = init.interrupt ?? new AbortController().signal;
    this.secrets = init.secrets ?? new SecretSet();
    this.renewDeadline();
  }

  /**
   * Starts --timeout afresh (the whole command's deadline; under --watch, each refresh's). API
   * clients are built again on next use, with the new deadline.
   */
  renewDeadline(): void {
    this.#endAt(this.now() + this.options.timeout * 1000, this.interrupt);
    this.#run = new FigureStore();
  }

  /** Ends this context's work at `deadline` (ms since the epoch), or when `also` aborts (Ctrl-C, a parent). */
  #endAt(deadline: number, also: AbortSignal): void {
    clearTimeout(this.#deadlineTimer);
    this.deadline = deadline;
    const timer = new AbortController();
    this.#deadlineTimer = setTimeout(() => timer.abort(new Error('deadline')), Math.max(0, deadline - this.now()));
    this.#deadlineTimer.unref();
    this.signal = AbortSignal.any([timer.signal, also]);
    // Every request waiting in the pool listens on it: a report asks for a dozen things at once, not a leak.
    setMaxListeners(1000, this.signal, timer.signal, also);
  }

  /** A long export (logs --all): no deadline for the whole run; each request keeps its own bound of --timeout seconds, and Ctrl-C still ends it. */
  withoutDeadline(): void {
    this.runUntilInterrupted();
  }

  /** Commands that serve until Ctrl-C (`sandbox`, `proxy`): --timeout bounds a command's work, not a server's life. */
  runUntilInterrupted(): void {
    clearTimeout(this.#deadlineTimer);
    this.deadline = Number.POSITIVE_INFINITY;
    this.signal = this.interrupt;
    this.#run = new FigureStore();
  }

  /** Another command, to run within this one (`tally demo`); only the CLI can hand it out. */
  async command(name: string): Promise<RunnableCommand> {
    if (!this.#init.command) throw new Error(`no command registry was given to run "${name}"`);
    return this.#init.command(name);
  }

  /**
   * A command line run in this process as the CLI runs it, with this run's global options but for
   * `overrides`: its exit code (what it prints goes to `io`). `signal` ends it early (a cancelled call).
   */
  runCommandLine(argv: string[], io: IO, { overrides, signal }: { overrides?: Partial<GlobalOptions>; signal?: AbortSignal } = {}): Promise<number> {
    if (!this.#init.commandLine) return Promise.reject(new Error('no command line was given to run commands in this process'));
    return this.#init.commandLine(argv, io, signal ? AbortSignal.any([this.interrupt, signal]) : this.interrupt, overrides);
  }

  /**
   * A new context for the same run: the same environment, secrets, interrupt and transport, with
   * some options changed (another profile, JSON) and, when given, its own streams. Its deadline
   * starts afresh (a refresh of a long-running command), unless endBefore is called.
   */
  child(overrides: Partial<GlobalOptions>, io?: IO, env?: NodeJS.ProcessEnv): Context {
    // One connection pool for the whole run: a fleet's profiles (and a server's refreshes) share it,
    // so requests to one origin stay within its connections, whoever sends them.
    return new Context({ ...this.#init, env: env ?? this.env, transport: this.transport(), secrets: this.secrets, interrupt: this.interrupt, io: io ?? this.io, options: { ...this.options, ...overrides } });
  }

  /**
   * A fleet's profile: it ends `marginMs` before `parent`'s deadline (and on its Ctrl-C), so a
   * profile that hangs fails in its own row while the fleet still has time to show every row.
   */
  endBefore(parent: Context, marginMs: number): void {
    this.#endAt(parent.deadline - marginMs, parent.signal);
    this.#run = new FigureStore();
  }

  /** The zone of labels and of times written without an offset: --tz, else the environment's TZ. */
  get zone(): Zone {
    this.#zone ??= this.options.tz === undefined ? zoneFromEnv(this.env) : (parseZone(this.options.tz) ?? throwNotAZone('--tz', this.options.tz));
    return this.#zone;
  }

  /** Whether --tz named the zone (it then labels what --utc-offset or the profile's grid would). */
  get zoneGiven(): boolean {
    return this.options.tz !== undefined;
  }

  /** Points this run at an in-process sandbox gateway (`tally demo`, `--demo`). */
  useDemo(): void {
    if (this.#settings) throw new Error('useDemo() must come before settings are resolved');
    this.options.demo = true;
  }

  /**
   * --fail-open after the deadline: the run goes on to report what it skipped, within `graceMs`
   * more (Ctrl-C still ends it). Only results already measured are written: nothing is asked again.
   */
  graceAfterDeadline(graceMs = 1000): void {
    if (this.interrupt.aborted) return;
    this.#endAt(this.now() + graceMs, this.interrupt);
  }

  /** The error that says why the command was stopped (Ctrl-C or --timeout). */
  abortError(): Interrupted | TimeoutError {
    if (this.signal.reason instanceof Interrupted) return this.signal.reason;
    return new TimeoutError(`timed out after ${this.options.timeout}s`);
  }

  /** For work that never waits (and so is never aborted): throws once --timeout has run out or Ctrl-C was pressed. */
  checkDeadline(): void {
    if (this.signal.aborted || this.now() >= this.deadline) throw this.abortError();
  }

  /**
   * Lets the event loop run (a Ctrl-C or the --timeout timer is heard only then), then stops the
   * command if either came: long computations call it every so often, and every result waits for
   * it before it is written, so an interrupt during work never ends in a result and exit 0.
   */
  async checkpoint(): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    if (this.signal.aborted) throw this.abortError();
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

  /**
   * The gateway that remembered facts (marks) are keyed by: the base URL, except for the demo
   * gateway, which is the same gateway with the same seeded history every run although it
   * listens on a new port each time.
   */
  async gatewayIdentity(): Promise<URL> {
    if (this.options.demo) return new URL(DEMO_IDENTITY);
    return (await this.client()).baseUrl;
  }

  #workspace?: string;

  /** Where a `.tally.json` is looked for (and above), when not the process's folder: an agent session's project. */
  workspaceFrom(dir: string): void {
    if (this.#settings) throw new Error('workspaceFrom() must come before settings are resolved');
    this.#workspace = dir;
  }

  /** The profile this run uses (--profile, TALLY_PROFILE, the active one, else default), for commands that only store. */
  async profileChoice(): Promise<{ profile: string; profileSource: Source; workspaceFile?: string }> {
    if (this.options.demo) return profileName({ flags: this.options, env: this.env });
    return chosenProfile({ flags: this.options, env: this.env, openStore: () => this.store(), warn: (line) => this.warnOnce(line), cwd: this.#workspace });
  }

  settings(): Promise<ResolvedSettings> {
    this.#settings ??= (async () => {
      if (this.options.demo) {
        const demo = await this.demoGateway();
        return {
          ...profileName({ flags: this.options, env: this.env }),
          baseUrl: new URL(demo.baseUrl),
          baseUrlSource: 'demo',
          credential: { kind: 'api-key', secret: demo.apiKey, source: 'demo' },
          record: undefined,
        } satisfies ResolvedSettings;
      }
      const settings = await resolveSettings({ flags: this.options, env: this.env, openStore: () => this.store(), warn: (line) => this.warnOnce(line), cwd: this.#workspace });
      this.secrets.add(settings.credential?.secret);
      this.secrets.add(settings.credential?.device?.refresh_token);
      // A stored credential others may read is worth a word, every time it is used.
      if (settings.credential?.source === 'profile') {
        const exposure = (await this.store()).exposure();
        if (exposure) this.warn(exposure);
      }
      return settings;
    })();
    return this.#settings;
  }

  /**
   * The stored profile's settings (utc_offset, pricing_ttl, ...). They apply even when the
   * environment gives the base URL and the key (and so the profile was not read to resolve them);
   * a config.json that cannot be read then only costs those settings, with a warning.
   */
  async profileRecord(): Promise<ProfileRecord | undefined> {
    const settings = await this.settings();
    if (settings.record !== undefined || this.options.demo) return settings.record;
    this.#record ??= (async () => {
      try {
        return (await this.store()).profile(settings.profile);
      } catch (error) {
        if (!(error instanceof ConfigError)) throw error;
        this.warn(`${error.message}; its settings are not applied`);
        return undefined;
      }
    })();
    return this.#record;
  }

  /** The API client for the resolved base URL and credential. */
  client(): Promise<HttpClient> {
    return this.#client('default', async () => {
      const settings = await this.settings();
      const baseUrl = requireBaseUrl(settings);
      let credential = settings.credential;
      if (credential?.kind === 'device-token') {
        const { freshDeviceCredential } = await import('./settings/device-refresh.js');
        credential = await freshDeviceCredential(
          { now: this.now, client: () => this.clientFor('oauth-refresh', baseUrl, undefined), store: () => this.store(), debug: (line) => this.debug(line) },
          settings,
          baseUrl,
        );
        this.secrets.add(credential?.secret);
      }
      return { baseUrl, credential };
    });
  }

  /** The run's connection pool without a gateway client (alerts go to other hosts, without the credential). */
  transport(): Transport {
    this.#rawTransport ??= this.#init.transport ?? this.#lazyTransport();
    return this.#rawTransport;
  }

  /** A client for an explicit base URL and credential (login verifies before it stores). */
  clientFor(key: string, baseUrl: URL, credential: ResolvedSettings['credential']): Promise<HttpClient> {
    this.secrets.add(credential?.secret);
    return this.#client(key, async () => ({ baseUrl, credential }));
  }

  #client(key: string, target: () => Promise<{ baseUrl: URL; credential: ResolvedSettings['credential'] }>): Promise<HttpClient> {
    return this.#run.client(key, async () => {
      const { baseUrl, credential } = await target();
      return {
        baseUrl,
        credential: credential && { kind: credential.kind, secret: credential.secret },
        transport: this.#init.transport ?? this.#lazyTransport(),
        ...{ signal: this.signal, deadline: this.deadline, timeoutSeconds: this.options.timeout, patient: this.options.patient, retry: this.#init.retry },
        ...{ sleep: this.sleep, random: this.random, now: this.now },
        ...{ log: this.options.debug ? (line: string) => this.debug(line) : undefined, userAgent: `tally/${typeof __TALLY_VERSION__ === 'string' ? __TALLY_VERSION__ : 'dev'}` },
        // A wait (rate limited, the gateway draining) is said at once on a terminal: never a silent pause.
        onWait: (reason) => this.progress(reason, { now: true }),
      };
    });
  }

  /** A figure of this computation, computed once whoever asks (see FigureStore.figure). */
  figure<T>(key: string, compute: () => Promise<T>): Promise<T> {
    return this.#run.figure(key, compute);
  }
  /** A figure of this computation where it has come, else undefined (nothing is asked). */
  settledFigure<T>(key: string): T | undefined {
    return this.#run.settled<T>(key);
  }
  /** Whether a figure of this computation has been asked for (it may still be under way). */
  askedFigure(key: string): boolean { return this.#run.asked(key); }

  /**
   * node:http (or the proxy agent) loads on the first request, not before: a cached answer needs
   * neither. One pool for the whole run (keep-alive), closed when the command ends.
   */
  #lazyTransport(): Transport {
    this.#pool ??= Promise.all([import('./api/transport.js'), import('./settings/protocols.js')]).then(([{ defaultTransport }, { protocolMemory }]) => defaultTransport(this.env, protocolMemory(() => this.stateDir(), this.now))).then((pool) => {
      this.onDispose(() => pool.close());
      return pool;
    });
    const pool = this.#pool;
    const transport: Transport = async (request) => (await pool).transport(request);
    transport.together = async (origin, options) => (await (await pool).transport.together?.(origin, options)) ?? MAX_CONNECTIONS_PER_ORIGIN;
    return transport;
  }

  /** Set by the program's top: runs once before the first result is written (the display currency's rate). */
  beforeOutput: (() => Promise<void>) | undefined;
  /** A transport of its own for forwarding calls (tally proxy): up to `connections` per origin over HTTP/1.1, so streams never queue behind a command's four. */
  forwardingTransport(connections: number): Transport {
    if (this.#init.transport) return this.#init.transport;
    const pool = Promise.all([import('./api/transport.js'), import('./settings/protocols.js')]).then(([{ defaultTransport }, { protocolMemory }]) => defaultTransport(this.env, protocolMemory(() => this.stateDir(), this.now), connections)).then((made) => (this.onDispose(() => made.close()), made));
    return async (request) => (await pool).transport(request);
  }

  onDispose(dispose: () => Promise<void> | void): void {
    this.#disposers.push(dispose);
  }

  async dispose(): Promise<void> {
    this.endProgress();
    clearTimeout(this.#deadlineTimer);
    for (const dispose of this.#disposers.splice(0).reverse()) await dispose();
  }

  /** The in-process sandbox of --demo: an outer run's (shared), else started here and closed with this run. */
  demoGateway(): Promise<DemoGateway> {
    this.#demo ??= this.#init.demoGateway ?? (async () => {
      const { startSandbox } = await import('./sandbox/server.js');
      const sandbox = await startSandbox({ port: 0 });
      this.onDispose(() => sandbox.close());
      return { baseUrl: sandbox.baseUrl, apiKey: sandbox.demoKey };
    })();
    return this.#demo;
  }
}
