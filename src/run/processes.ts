// Every process a run started (`tally run`), found again however it left the command's tree or
// group: a child that called setsid, a daemon's double fork, a nohup'd worker. On Linux each
// process of the run carries a mark in its environment (a variable whose name holds this run's
// id, set by tally alone and inherited by everything the command starts), so /proc/PID/environ
// finds it again wherever it was re-parented; beside the mark, every process seen under one of
// the run's is remembered (one that clears its environment is still the run's once seen). A
// process is known by its pid and its start time together, so a pid the system gave to another
// process since is never signalled. Elsewhere (`ps`), only the tree can be followed.
//
// What cannot be seen: a process that cleared its environment before tally saw it under one of
// the run's (started and re-parented within one scan); what cannot be reached: another user's
// (a setuid program): named by the caller, never passed over in silence.
import { readFileSync, readdirSync } from 'node:fs';
import { randomBytes } from 'node:crypto';

/** A process as /proc (or ps) states it: its parent, its group and when it started (clock ticks since boot). */
interface ProcessFacts {
  ppid: number;
  pgid: number;
  started: string;
  /** A zombie has ended; only its parent's wait is left. */
  ended: boolean;
  name: string;
}

/** A process the run could not stop, and why. */
export interface Unreachable {
  pid: number;
  name: string;
  why: string;
}

export class RunProcesses {
  /** The environment variable that marks the run's processes (its name holds the run's id). */
  readonly markName: string;
  readonly #mark: Buffer;
  readonly #root: number;
  /** The run's processes: pid -> start time. */
  readonly #ours = new Map<number, string>();
  /** Processes looked at and found not the run's: pid -> start time (their environment is read once). */
  readonly #others = new Map<number, string>();
  readonly #unreachable = new Map<number, Unreachable>();
  readonly #linux = process.platform === 'linux';

  constructor(id: string = randomBytes(6).toString('hex')) {
    this.markName = `TALLY_RUN_${id}`;
    this.#mark = Buffer.from(`${this.markName}=1`);
    this.#root = process.pid;
  }

  /** The command's environment with the run's mark added. */
  marked(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
    return { ...env, [this.markName]: '1' };
  }

  /** Takes the command's own process as the run's. */
  adopt(pid: number): void {
    const facts = factsOf(pid);
    if (facts) this.#ours.set(pid, facts.started);
  }

  /**
   * Looks through the process table for the run's processes: those that carry its mark and those
   * under one of the run's (whatever their environment). Returns the pids of those running now.
   */
  scan(): number[] {
    return this.#look().running;
  }

  #look(): { table: Map<number, ProcessFacts>; running: number[] } {
    const table = processTable();
    // Forget those that are gone (or whose pid is another process's now).
    for (const [pid, started] of this.#ours) if (table.get(pid)?.started !== started) this.#ours.delete(pid);
    for (const [pid, started] of this.#others) if (table.get(pid)?.started !== started) this.#others.delete(pid);
    // Parents first would need an order; a few passes find children of children found in this scan.
    for (let pass = 0, found = true; found && pass < 8; pass++) {
      found = false;
      for (const [pid, facts] of table) {
        if (pid === this.#root || this.#ours.has(pid)) continue;
        const underOurs = this.#ours.has(facts.ppid);
        if (!underOurs && this.#others.has(pid)) continue;
        if (underOurs || this.#carriesMark(pid)) {
          this.#ours.set(pid, facts.started);
          this.#others.delete(pid);
          found = true;
        } else this.#others.set(pid, facts.started);
      }
    }
    return { table, running: [...this.#ours.keys()].filter((pid) => !table.get(pid)!.ended) };
  }

  /** Whether any of the run's processes runs (after a fresh look). */
  anyRunning(): boolean {
    return this.scan().length > 0;
  }

  /** Sends `signal` to every process of the run (found afresh), or to those of them not in `skip`; returns the pids it reached. */
  signal(signal: NodeJS.Signals, skip: ReadonlySet<number> = new Set()): number[] {
    const reached: number[] = [];
    const { table, running } = this.#look();
    for (const pid of running) {
      if (skip.has(pid)) continue;
      try {
        process.kill(pid, signal);
        reached.push(pid);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'EPERM') this.#unreachable.set(pid, { pid, name: table.get(pid)?.name ?? '?', why: "another user's process" });
      }
    }
    return reached;
  }

  /** The processes of the run that tally could not stop (another user's), each once. */
  unreachable(): Unreachable[] {
    const running = new Set(this.scan());
    return [...this.#unreachable.values()].filter((u) => running.has(u.pid));
  }

  #carriesMark(pid: number): boolean {
    if (!this.#linux) return false;
    try {
      return readFileSync(`/proc/${pid}/environ`).includes(this.#mark);
    } catch {
      // Another user's (EACCES), or gone.
      return false;
    }
  }
}

/** Every process's parent, group, start time and name: /proc on Linux, `ps` elsewhere. */
export function processTable(): Map<number, ProcessFacts> {
  const table = new Map<number, ProcessFacts>();
  if (process.platform === 'linux') {
    let names: string[];
    try {
      names = readdirSync('/proc');
    } catch {
      return table;
    }
    for (const name of names) {
      if (!/^\d+$/.test(name)) continue;
      const facts = factsOf(Number(name));
      if (facts) table.set(Number(name), facts);
    }
    return table;
  }
  try {
    const { execFileSync } = process.getBuiltinModule('node:child_process');
    for (const line of execFileSync('ps', ['-A', '-o', 'pid=,ppid=,pgid=,lstart=,stat=,comm='], { encoding: 'utf8' }).split('\n')) {
      // pid ppid pgid, the start (five words: Mon Dec  1 22:00:00 2026), the state, the name.
      const words = line.trim().split(/\s+/);
      const [pid, ppid, pgid] = words.slice(0, 3).map(Number);
      if (words.length < 10 || !Number.isInteger(pid) || !Number.isInteger(ppid) || !Number.isInteger(pgid)) continue;
      table.set(pid!, { ppid: ppid!, pgid: pgid!, started: words.slice(3, 8).join(' '), ended: words[8]!.startsWith('Z'), name: words.slice(9).join(' ') });
    }
  } catch {
    // No ps: only the command itself is known.
  }
  return table;
}

/** A process's facts from /proc/PID/stat (its name, in parentheses, may hold anything, spaces and parentheses included). */
function factsOf(pid: number): ProcessFacts | undefined {
  if (process.platform !== 'linux') return processTable().get(pid);
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const close = stat.lastIndexOf(')');
    const rest = stat.slice(close + 2).split(' ');
    // After the name: state, ppid, pgrp, session, tty, tpgid, flags, 4 fault counts, 4 times, priority, nice, threads, itrealvalue, starttime.
    return { ppid: Number(rest[1]), pgid: Number(rest[2]), started: rest[19] ?? '', ended: rest[0] === 'Z' || rest[0] === 'X', name: stat.slice(stat.indexOf('(') + 1, close).slice(0, 32) };
  } catch {
    return undefined;
  }
}

/** A process's group (undefined: gone). */
export function groupOf(pid: number): number | undefined {
  return factsOf(pid)?.pgid;
}
