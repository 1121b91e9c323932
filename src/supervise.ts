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
import { readFileSync, readdirSync } from 'node:fs';
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
  /** Every process seen under the command (tree mode), to stop those its exit left behind. */
  readonly #seen = new Set<number>();
  readonly #listeners: [NodeJS.Signals, () => void][] = [];
  readonly #onExit = () => this.kill('SIGKILL');

  private constructor(child: ChildProcess, mode: SuperviseMode) {
    this.#child = child;
    this.#pid = child.pid!;
    this.mode = mode;
    this.exited = new Promise((resolve) =>
      child.once('exit', (code, signal) => {
        this.#outcome = { code, signal };
        resolve(this.#outcome);
      }),
    );
    // tally never ends leaving the command running: an exit for any reason stops it at once.
    process.on('exit', this.#onExit);
    void this.exited.then(() => process.off('exit', this.#onExit));
  }

  /** Starts `command` (looked up on the PATH as a shell would); resolves once it runs, or rejects with NotStarted. */
  static start(command: string, args: string[], options: { mode: SuperviseMode; env: NodeJS.ProcessEnv }): Promise<Supervised> {
    const windows = process.platform === 'win32';
    return new Promise((resolve, reject) => {
      const child = spawn(command, args, { stdio: 'inherit', env: options.env, detached: options.mode === 'group' && !windows, windowsHide: false });
      child.once('error', (error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') reject(new NotStarted(`${command}: command not found`, 127));
        else reject(new NotStarted(`${command}: cannot run it (${error.code ?? error.message})`, 126));
      });
      child.once('spawn', () => resolve(new Supervised(child, options.mode)));
    });
  }

  get pid(): number {
    return this.#pid;
  }

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

  /** Stops passing signals on (the command has ended). */
  release(): void {
    for (const [signal, listener] of this.#listeners.splice(0)) process.off(signal, listener);
  }

  /** A signal for the command as a person would send it: to its group, or to the command itself. */
  send(signal: NodeJS.Signals): void {
    if (!this.running) return;
    try {
      if (this.mode === 'group' && process.platform !== 'win32') process.kill(-this.#pid, signal);
      else this.#child.kill(signal);
    } catch {
      // Gone already.
    }
  }

  /** Whether the command, or anything it started that is still in its group or tree, runs. */
  anyAlive(): boolean {
    if (process.platform === 'win32') return this.running;
    if (this.mode === 'group') return signalable(-this.#pid);
    if (this.running) return true;
    return [...this.#seen].some((pid) => signalable(pid));
  }

  /** Sends `signal` to the command and everything it started. */
  kill(signal: NodeJS.Signals): void {
    if (process.platform === 'win32') {
      if (!this.running) return;
      try {
        spawn('taskkill', ['/pid', String(this.#pid), '/T', ...(signal === 'SIGKILL' ? ['/F'] : [])], { stdio: 'ignore', windowsHide: true });
      } catch {
        this.#child.kill(signal);
      }
      return;
    }
    if (this.mode === 'group') {
      try {
        process.kill(-this.#pid, signal);
      } catch {
        // The group is empty.
      }
      return;
    }
    const tree = this.running ? descendants(this.#pid) : [];
    for (const pid of tree) this.#seen.add(pid);
    const own = ownGroup();
    const groups = new Set<number>();
    for (const pid of [...(this.running ? [this.#pid] : []), ...this.#seen]) {
      try {
        process.kill(pid, signal);
      } catch {
        // Gone.
      }
      const group = groupOf(pid);
      if (group !== undefined && group !== own) groups.add(group);
    }
    // Processes the command put in groups of their own go with their groups.
    for (const group of groups) {
      try {
        process.kill(-group, signal);
      } catch {
        // Empty.
      }
    }
  }

  /**
   * Stops the command and what it started: SIGTERM, then SIGKILL to whatever still runs after
   * `graceMs`. Resolves with how it ended ('terminated': within the grace).
   */
  async stop(graceMs: number, sleep: (ms: number) => Promise<void>): Promise<'terminated' | 'killed'> {
    this.kill('SIGTERM');
    const until = Date.now() + graceMs;
    while (Date.now() < until) {
      if (!this.anyAlive()) return 'terminated';
      await Promise.race([sleep(Math.min(100, Math.max(1, until - Date.now()))), this.running ? this.exited : new Promise(() => undefined)]);
      // A child that exits leaves the others of its tree: they are looked for once more.
      if (this.mode === 'tree' && this.#seen.size === 0 && !this.running) break;
    }
    if (!this.anyAlive()) return 'terminated';
    this.kill('SIGKILL');
    await this.exited;
    return 'killed';
  }
}

/** Whether a process (or, negative, a process group) exists: signal 0 checks without sending. */
function signalable(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The processes under `root` (not itself), by their parents: /proc on Linux, `ps` elsewhere. */
export function descendants(root: number): number[] {
  const parents = processTable();
  const children = new Map<number, number[]>();
  for (const [pid, { ppid }] of parents) children.set(ppid, [...(children.get(ppid) ?? []), pid]);
  const found: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    for (const child of children.get(queue.shift()!) ?? []) {
      if (found.includes(child)) continue;
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

/** Every process's parent and group. */
function processTable(): Map<number, { ppid: number; pgid: number }> {
  const table = new Map<number, { ppid: number; pgid: number }>();
  if (process.platform === 'linux') {
    for (const name of readdirSync('/proc')) {
      if (!/^\d+$/.test(name)) continue;
      const fields = statFields(Number(name));
      if (fields) table.set(Number(name), fields);
    }
    return table;
  }
  try {
    const { execFileSync } = process.getBuiltinModule('node:child_process');
    for (const line of execFileSync('ps', ['-A', '-o', 'pid=,ppid=,pgid='], { encoding: 'utf8' }).split('\n')) {
      const [pid, ppid, pgid] = line.trim().split(/\s+/).map(Number);
      if (Number.isInteger(pid) && Number.isInteger(ppid) && Number.isInteger(pgid)) table.set(pid!, { ppid: ppid!, pgid: pgid! });
    }
  } catch {
    // No ps: only the command itself is known.
  }
  return table;
}

/** A process's parent and group from /proc/PID/stat (its name, in parentheses, may hold anything). */
function statFields(pid: number): { ppid: number; pgid: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { ppid: Number(rest[1]), pgid: Number(rest[2]) };
  } catch {
    return undefined;
  }
}

function groupOf(pid: number): number | undefined {
  if (process.platform === 'linux') return statFields(pid)?.pgid;
  return processTable().get(pid)?.pgid;
}

function ownGroup(): number | undefined {
  return groupOf(process.pid);
}
