// A command run under tally (`tally run`): started with stdin, stdout, stderr and environment
// untouched, stopped as a whole when asked, never left running when tally exits.
//
// Two ways, as the terminal needs:
// - `group` (a script, CI: stdin is no terminal): the command leads a process group of its own,
//   so that everything it starts is stopped with it; signals sent to tally are passed on to the
//   group (the terminal's own signals do not reach it: there is no terminal).
// - `tree` (stdin is a terminal): the command stays in tally's process group, in the terminal's
//   foreground, so that Ctrl-C, Ctrl-Z, a resized window and /dev/tty reach it as without tally;
//   it is stopped with the processes it started, found through their parents (Linux's /proc,
//   `ps` elsewhere), and their own process groups. Ctrl-C reaches it from the terminal: tally does
//   not send it again.
// On Windows, the command and what it started are ended with `taskkill /T`.
import { type ChildProcess, spawn } from 'node:child_process';
import { RunProcesses, type Unreachable, groupOf, processTable } from './processes.js';
import { processExists } from '../settings/files.js';
import { constants } from 'node:os';

export type SuperviseMode = 'group' | 'tree';

export interface ChildOutcome {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** Why a command could not be started: not found (127, as a shell says), or found and not runnable (126). */
export class NotStarted extends Error {
  constructor(
    message: string,
    readonly exitCode: 126 | 127,
  ) {
    super(message);
  }
}

/** The exit code a shell gives for an outcome: the command's own, or 128 and the signal's number. */
export function exitCodeOf(outcome: ChildOutcome): number {
  if (outcome.code !== null) return outcome.code;
  const number = outcome.signal ? constants.signals[outcome.signal] : undefined;
  return number === undefined ? 1 : 128 + number;
}

/** Signals sent to tally that are passed on: in a group, every one a person or a runner sends; in the terminal's group, those the terminal does not deliver itself. */
const FORWARDED: Record<SuperviseMode, NodeJS.Signals[]> = {
  group: ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT', 'SIGUSR1', 'SIGUSR2'],
  tree: ['SIGTERM', 'SIGHUP', 'SIGUSR1', 'SIGUSR2'],
};

export class Supervised {
  readonly mode: SuperviseMode;
  readonly exited: Promise<ChildOutcome>;
  readonly #child: ChildProcess;
  readonly #pid: number;
  #outcome: ChildOutcome | undefined;
  /** Every process of the run, found by its mark or under one of the run's (processes.ts). */
  readonly #processes: RunProcesses;
  /** Processes found between readings: the tree is looked at this often, so a child that leaves it quickly is still seen under its parent. */
  readonly #scanner: NodeJS.Timeout | undefined;
  readonly #listeners: [NodeJS.Signals, () => void][] = [];
  readonly #onExit = () => this.kill('SIGKILL');

  private constructor(child: ChildProcess, mode: SuperviseMode, processes: RunProcesses) {
    this.#child = child;
    this.#pid = child.pid!;
    this.mode = mode;
    this.#processes = processes;
    processes.adopt(this.#pid);
    this.exited = new Promise((resolve) =>
      child.once('exit', (code, signal) => {
        this.#outcome = { code, signal };
        resolve(this.#outcome);
      }),
    );
    if (process.platform !== 'win32') {
      this.#scanner = setInterval(() => processes.scan(), SCAN_MS);
      this.#scanner.unref();
    }
    // tally never ends leaving the run's processes running: an exit for any reason stops them at once.
    process.on('exit', this.#onExit);
  }

  /** Starts `command` (looked up on the PATH as a shell would), its environment marked as the run's; resolves once it runs, or rejects with NotStarted. */
  static start(command: string, args: string[], options: { mode: SuperviseMode; env: NodeJS.ProcessEnv; processes?: RunProcesses }): Promise<Supervised> {
    const windows = process.platform === 'win32';
    const processes = options.processes ?? new RunProcesses();
    return new Promise((resolve, reject) => {
      const child = spawn(command, args, { stdio: 'inherit', env: processes.marked(options.env), detached: options.mode === 'group' && !windows, windowsHide: false });
      child.once('error', (error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') reject(new NotStarted(`${command}: command not found`, 127));
        else reject(new NotStarted(`${command}: cannot run it (${error.code ?? error.message})`, 126));
      });
      child.once('spawn', () => resolve(new Supervised(child, options.mode, processes)));
    });
  }

  get pid(): number {
    return this.#pid;
  }

  /** Whether the command itself runs (what it started may run on: see anyAlive). */
  get running(): boolean {
    return this.#outcome === undefined;
  }

  /** Passes the signals sent to tally on to the command, as they would reach it without tally. */
  forwardSignals(onSignal: (signal: NodeJS.Signals) => void = () => undefined): void {
    for (const signal of FORWARDED[this.mode]) {
      const listener = () => {
        onSignal(signal);
        this.send(signal);
      };
      process.on(signal, listener);
      this.#listeners.push([signal, listener]);
    }
    // The terminal's Ctrl-C reaches a command in its foreground directly; tally only hears it.
    if (this.mode === 'tree') {
      for (const signal of ['SIGINT', 'SIGQUIT'] as const) {
        const listener = () => onSignal(signal);
        process.on(signal, listener);
        this.#listeners.push([signal, listener]);
      }
    }
  }

  /** Stops passing signals on and looking for processes (the run is over: none of its processes runs). */
  release(): void {
    for (const [signal, listener] of this.#listeners.splice(0)) process.off(signal, listener);
    clearInterval(this.#scanner);
    if (!this.anyAlive()) process.off('exit', this.#onExit);
  }

  /**
   * A signal for the command as a person would send it: to its group (or the command itself), and
   * to the run's processes that left it (a new session, a daemon), which no terminal reaches.
   */
  send(signal: NodeJS.Signals): void {
    if (this.running) {
      try {
        if (this.mode === 'group' && process.platform !== 'win32') process.kill(-this.#pid, signal);
        else this.#child.kill(signal);
      } catch {
        // Gone already.
      }
    }
    if (process.platform !== 'win32') this.#processes.signal(signal, this.mode === 'group' ? this.#inGroup() : new Set([this.#pid]));
  }

  /** Whether the command, or anything the run started, wherever it went, runs. */
  anyAlive(): boolean {
    if (process.platform === 'win32') return this.running;
    if (this.mode === 'group' && processExists(-this.#pid)) return true;
    return this.#processes.anyRunning();
  }

  /** The pids of the run's processes running now (found afresh). */
  processes(): number[] {
    return process.platform === 'win32' ? (this.running ? [this.#pid] : []) : this.#processes.scan();
  }

  /** The run's processes that tally could not stop (another user's), to be named. */
  unreachable(): Unreachable[] {
    return process.platform === 'win32' ? [] : this.#processes.unreachable();
  }

  /** Sends `signal` to the command and everything the run started (those in `skip` aside); returns the pids it reached. */
  kill(signal: NodeJS.Signals, skip: ReadonlySet<number> = new Set()): number[] {
    if (process.platform === 'win32') {
      if (!this.running) return [];
      try {
        spawn('taskkill', ['/pid', String(this.#pid), '/T', ...(signal === 'SIGKILL' ? ['/F'] : [])], { stdio: 'ignore', windowsHide: true });
      } catch {
        this.#child.kill(signal);
      }
      return [this.#pid];
    }
    const reachedAsGroup: number[] = [];
    if (this.mode === 'group' && !skip.has(-this.#pid)) {
      // The group as one, and its members are not signalled again one by one.
      reachedAsGroup.push(...this.#inGroup());
      try {
        process.kill(-this.#pid, signal);
      } catch {
        // The group is empty.
      }
    }
    const reached = this.#processes.signal(signal, new Set([...skip, ...reachedAsGroup]));
    // The groups they lead or share go with them (a process the scan has not seen yet may be in one).
    const own = groupOf(process.pid);
    for (const group of new Set(reached.map(groupOf))) {
      if (group === undefined || group === own || group === -this.#pid || skip.has(-group)) continue;
      try {
        process.kill(-group, signal);
      } catch {
        // Empty.
      }
    }
    return [...reachedAsGroup, ...reached];
  }

  /**
   * Stops the command and everything the run started: SIGTERM (once to each process, those that
   * appear during the grace included), then SIGKILL to whatever still runs after `graceMs`, until
   * none does. Resolves with how it ended ('terminated': within the grace).
   */
  async stop(graceMs: number, sleep: (ms: number) => Promise<void>): Promise<'terminated' | 'killed'> {
    const termed = new Set<number>([-this.#pid]);
    for (const pid of this.kill('SIGTERM')) termed.add(pid);
    const until = Date.now() + graceMs;
    while (Date.now() < until) {
      if (!this.anyAlive()) return 'terminated';
      await Promise.race([sleep(Math.min(100, Math.max(1, until - Date.now()))), this.running ? this.exited : new Promise(() => undefined)]);
      // Started during the grace (a worker pool replacing its workers): asked to end too.
      for (const pid of this.kill('SIGTERM', termed)) termed.add(pid);
    }
    if (!this.anyAlive()) return 'terminated';
    // A process that forks as fast as it is killed is killed again, for a bounded while.
    for (let round = 0; round < 50 && this.anyAlive(); round++) {
      this.kill('SIGKILL');
      await sleep(round < 10 ? 10 : 50);
    }
    if (this.running) await this.exited;
    return 'killed';
  }

  /** The pids in the command's process group now (signalled with it). */
  #inGroup(): Set<number> {
    const members = new Set<number>();
    for (const [pid, facts] of processTable()) if (facts.pgid === this.#pid) members.add(pid);
    return members;
  }
}

/** How often the run's processes are looked for between readings (ms). */
const SCAN_MS = 500;
