// Shared test fixtures: a mock dispatcher, a command runner, the built binary, temp folders.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MockAgent } from 'undici';
import { afterAll, afterEach } from 'vitest';
import { runCli } from '../src/cli/program.js';
import { Context, type GlobalOptions } from '../src/context.js';
import { createTestIO, type TestIO } from '../src/io.js';
import { HttpClient, type Credential, type RetryPolicy } from '../src/api/http.js';
import { undiciTransport, type Transport } from '../src/api/transport.js';

export const GW = 'https://gw.test';
export const KEY = 'gw-sk-test1234567890abcdefghijklmnop';

/** The mock gateways made during the current test: each must have answered every stub it was given. */
const madeThisTest: MockAgent[] = [];
afterEach(() => {
  const agents = madeThisTest.splice(0);
  const unused = agents.flatMap((agent) => agent.pendingInterceptors().filter((i) => !i.persist));
  if (unused.length) throw new Error(`a stub of the mock gateway was never asked for (a test stubbing what the code no longer asks proves nothing): ${unused.map((i) => `${i.method} ${String(i.path)}`).join(', ')}; leave it out, or make the gateway with mockGateway(origin, { loose: true }) where a test means to leave stubs`);
});

/**
 * A MockAgent that refuses real connections. A test fails when it leaves a stub unused (persistent
 * ones aside); `loose` lets a test leave some (a retry it allows for but does not need), and
 * `done()` checks within a test.
 */
export function mockGateway(origin = GW, options: { loose?: boolean } = {}) {
  const agent = new MockAgent();
  agent.disableNetConnect();
  if (!options.loose) madeThisTest.push(agent);
  const pool = agent.get(origin);
  return {
    agent,
    pool,
    transport: undiciTransport(agent) as Transport,
    done: () => agent.assertNoPendingInterceptors(),
  };
}

/** A sleep that returns at once and remembers what was asked. */
export function fakeSleep() {
  const waits: number[] = [];
  const sleep = async (ms: number, signal?: AbortSignal) => {
    if (signal?.aborted) throw signal.reason;
    waits.push(ms);
  };
  return { waits, sleep };
}

export const FAST_RETRY: RetryPolicy = { attempts: 4, transientBaseMs: 100, rateLimitBaseMs: 1000, maxRetryAfterMs: 10_000 };

export function testClient(transport: Transport, options: { credential?: Credential | null; sleep?: (ms: number, s: AbortSignal) => Promise<void>; timeoutSeconds?: number; log?: (line: string) => void; baseUrl?: string; signal?: AbortSignal; maxBodyBytes?: number } = {}) {
  const timeoutSeconds = options.timeoutSeconds ?? 30;
  return new HttpClient({
    baseUrl: new URL(options.baseUrl ?? GW),
    credential: options.credential === null ? undefined : (options.credential ?? { kind: 'api-key', secret: KEY }),
    transport,
    signal: options.signal ?? new AbortController().signal,
    deadline: Date.now() + timeoutSeconds * 1000,
    timeoutSeconds,
    log: options.log,
    sleep: options.sleep ?? fakeSleep().sleep,
    random: () => 0.5,
    now: Date.now,
    retry: FAST_RETRY,
    maxBodyBytes: options.maxBodyBytes,
  });
}

/**
 * Folders made for tests (state folders for runs that brought none, tempDir()'s), removed after the file's tests
 * (each test file loads this module afresh; a worker thread's end runs no 'exit' handler, which
 * left thousands of them in the system's temporary folder).
 */
const madeFolders: string[] = [];
afterAll(() => {
  for (const dir of madeFolders.splice(0)) removeFolder(dir);
});

/**
 * Removes a test's folder. A process a run left behind (a status line's background refresh) may
 * still be writing its last file there: the removal is tried again (ENOTEMPTY), and a folder that
 * still cannot go stays in the temporary folder rather than failing the file's tests.
 */
function removeFolder(dir: string): void {
  try {
    rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
  } catch {
    // Left behind: the system's temporary folder takes it.
  }
}

/** A fresh, empty state folder for one run (so one test never sees what another cached). */
export function freshState(): string {
  const path = mkdtempSync(join(tmpdir(), 'tally-run-'));
  madeFolders.push(path);
  return path;
}

/** A temporary folder, removed by remove() or else after the file's tests. */
export function tempDir(): { path: string; remove: () => void } {
  const path = mkdtempSync(join(tmpdir(), 'tally-test-'));
  madeFolders.push(path);
  return { path, remove: () => removeFolder(path) };
}

/** Makes temporary folders for the tests of the calling file, removing them after each test. */
export function tempDirs(): () => string {
  const made: { remove: () => void }[] = [];
  afterEach(() => made.splice(0).forEach((d) => d.remove()));
  return () => {
    const dir = tempDir();
    made.push(dir);
    return dir.path;
  };
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
  io: TestIO;
}

/** Runs a command in-process with a test IO and a mock transport. */
export async function runCommand(
  argv: string[],
  options: { transport?: Transport; env?: NodeJS.ProcessEnv; tty?: boolean; color?: boolean; stdin?: string; answers?: string[]; width?: number; height?: number; sleep?: (ms: number, s?: AbortSignal) => Promise<void>; now?: () => number; interrupt?: AbortSignal } = {},
): Promise<RunResult> {
  const io = createTestIO({ stdoutIsTTY: options.tty ?? false, stderrIsTTY: options.tty ?? false, stdinIsTTY: options.tty ?? false, color: options.color ?? false, width: options.width ?? 100, height: options.height, stdin: options.stdin, answers: options.answers });
  const code = await runCli(argv, {
    io,
    env: { TALLY_CONFIG_DIR: freshState(), ...options.env },
    transport: options.transport,
    retry: FAST_RETRY,
    sleep: options.sleep ?? (async () => undefined),
    now: options.now,
    random: () => 0.5,
    interrupt: options.interrupt,
  });
  return { code, stdout: io.stdout, stderr: io.stderr, io };
}

export function testContext(options: Partial<GlobalOptions> & { transport?: Transport; env?: NodeJS.ProcessEnv; tty?: boolean; now?: () => number } = {}) {
  const io = createTestIO({ stdoutIsTTY: options.tty ?? false });
  const { now, transport: _transport, env: _env, tty: _tty, ...globals } = options;
  const ctx = new Context({
    io,
    options: { json: false, csv: false, timeout: 30, debug: false, demo: false, allowHttp: false, wide: false, exact: false, ...globals },
    ...(now ? { now } : {}),
    env: { TALLY_CONFIG_DIR: freshState(), ...options.env },
    transport: options.transport,
    retry: FAST_RETRY,
    sleep: async () => undefined,
  });
  return { ctx, io };
}

export const BIN = fileURLToPath(new URL('../bin/tally.js', import.meta.url));
/** The Node the built binary's end-to-end tests run under: this one, or TALLY_TEST_NODE (.ci/run runs them on Node 22 and 24 too). */
export const NODE = process.env.TALLY_TEST_NODE ? resolve(process.env.TALLY_TEST_NODE) : process.execPath;
/** Preloaded to give the binary a fixed clock (see there). */
export const FIXED_CLOCK = fileURLToPath(new URL('./support/fixed-clock.cjs', import.meta.url));

/** The node arguments that run the binary, on a fixed clock when `now` (ms) is given. */
export function binaryArgs(args: string[], now?: number): string[] {
  return now === undefined ? [BIN, ...args] : ['--require', FIXED_CLOCK, BIN, ...args];
}

export interface ProcessResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs a program as a child process: its exit, and what it printed (killed after `timeoutMs`). */
export function runProcess(command: string, args: string[], options: { env?: NodeJS.ProcessEnv; input?: string; timeoutMs?: number; cwd?: string } = {}): Promise<ProcessResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env: options.env, stdio: ['pipe', 'pipe', 'pipe'], ...(options.cwd === undefined ? {} : { cwd: options.cwd }) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 20_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
    // A child that exits before reading its input closes the pipe: that is its answer, not an error of the test.
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.input ?? '');
  });
}

/** Runs the built binary as a child process (at a fixed `now`, in ms, when given). */
export function runTally(args: string[], options: { env?: NodeJS.ProcessEnv; input?: string; timeoutMs?: number; now?: number; cwd?: string } = {}): Promise<ProcessResult> {
  const env = { PATH: process.env.PATH, HOME: '/nonexistent-home', NO_COLOR: '1', ...(options.now === undefined ? {} : { TALLY_TEST_NOW: String(options.now) }), ...options.env };
  return runProcess(NODE, binaryArgs(args, options.now), { ...options, env });
}

/** Whether a program is on the PATH (tests of a real shell or terminal run only where it is). */
export function hasCommand(name: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' }).status === 0;
}

/**
 * Whether a test that needs a tool (or a part the machine provides: a binary, a tmpfs) skips here:
 * where it is missing, except under CI=true, where .ci/run installed everything and a missing
 * tool is a failure, never a skip that passes unseen.
 */
export function skipWithout(present: unknown): boolean {
  return !present && process.env.CI !== 'true';
}

/** Ends a child process tally runs (a server) with SIGTERM and resolves once it has exited: its folders may then be removed. */
export function stopChild(child: import('node:child_process').ChildProcess): Promise<void> {
  const exited = new Promise<void>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('close', () => resolve())));
  child.kill('SIGTERM');
  return exited;
}
