// What an agent hands a hook on stdin (the status line's session, guard's event): a small JSON
// document, written at once and closed. It is read without Node's stream over stdin where the
// platform allows: building process.stdin's socket loads node:net and its stream machinery, 5-6 ms
// of a start that should be Node's own (a hook runs before every tool call). Read once a run, within
// a moment, never more than a megabyte: a hook never hangs on its input.
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { readStateFile } from '../settings/read-file.js';

const MAX_INPUT_BYTES = 1024 * 1024;
/** How long a hook waits for its input to arrive on a pipe (Claude Code writes it at once). */
const INPUT_WAIT_MS = 250;
/** How often a pipe that has nothing yet is asked again, within that wait. */
const POLL_MS = 5;

/**
 * Stdin's text when it is a file, or a pipe or socket that delivers within a moment (an agent
 * writes the document at once and closes it); never waits on a terminal or a device, nor long on
 * a pipe nothing writes to.
 */
export async function readStdin(): Promise<string | undefined> {
  // Read once a run: the fast answers (dist/fast-*.cjs) and the full program share a process, and
  // what the first read is what the full program reads when the fast path hands the run on.
  const shared = globalThis as { __tallyStdin?: Promise<string | undefined> };
  shared.__tallyStdin ??= readStdinOnce();
  return shared.__tallyStdin;
}

async function readStdinOnce(): Promise<string | undefined> {
  let stat;
  try {
    stat = fstatSync(0);
  } catch {
    return undefined;
  }
  // A file: read as tally reads every file (regular, within a size), from its start.
  if (stat.isFile()) {
    try {
      return readStateFile('/dev/stdin', MAX_INPUT_BYTES).toString('utf8');
    } catch {
      return undefined;
    }
  }
  if (!stat.isFIFO() && !stat.isSocket()) return undefined;
  const source = stat.isFIFO() ? reopenedPipe() : nonBlockingSocket();
  return source ? readPolling(source) : readAsStream();
}

interface Source {
  fd: number;
  close(): void;
}

/**
 * A shell's pipe (a FIFO), opened again through /proc/self/fd/0 without blocking: on Linux a
 * description of its own, so the writer's and any sibling reader's are left as they were.
 */
function reopenedPipe(): Source | undefined {
  if (process.platform !== 'linux') return nonBlockingSocket();
  try {
    const fd = openSync('/proc/self/fd/0', constants.O_RDONLY | constants.O_NONBLOCK);
    return { fd, close: () => closeSync(fd) };
  } catch {
    return nonBlockingSocket();
  }
}

/** Kept for the run: the handle that made stdin non-blocking (libuv never closes fds 0-2 anyway). */
const kept: unknown[] = [];

/**
 * A Node spawner's pipe (a socket pair: Claude Code's hooks, spawnSync's input), made non-blocking
 * as process.stdin would make it, by the same libuv call (uv_pipe_open through Node's pipe_wrap
 * binding), without building the stream; Node restores fd 0's flags at exit (a parent sharing the
 * socket finds it blocking again, tested). Undefined on Windows, and where the binding is not there
 * or refuses (a later Node, stdin already read by a stream): the stream reads it.
 */
function nonBlockingSocket(): Source | undefined {
  // On Windows libuv opens a pipe its own way (overlapped, or in no-wait mode): the stream reads it there.
  if (process.platform === 'win32') return undefined;
  const quiet = process.noDeprecation;
  try {
    // process.binding is deprecated in documentation only (a warning under --pending-deprecation): silenced for this one call.
    process.noDeprecation = true;
    const binding = (process as unknown as { binding(name: string): unknown }).binding('pipe_wrap') as {
      Pipe: new (type: number) => { open(fd: number): number };
      constants: { SOCKET: number };
    };
    const handle = new binding.Pipe(binding.constants.SOCKET);
    if (handle.open(0) !== 0) return undefined;
    kept.push(handle);
    return { fd: 0, close: () => undefined };
  } catch {
    return undefined;
  } finally {
    process.noDeprecation = quiet;
  }
}

type Step = 'end' | 'wait' | 'fail';

/** Reads what the source holds now into chunks: to its end, or until it has nothing more for now. */
function drain(source: Source, buffer: Buffer, chunks: Buffer[], size: { bytes: number }): Step {
  for (;;) {
    let n: number;
    try {
      n = readSync(source.fd, buffer, 0, buffer.length, null);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      return code === 'EAGAIN' || code === 'EWOULDBLOCK' ? 'wait' : 'fail';
    }
    if (n === 0) return 'end';
    size.bytes += n;
    if (size.bytes > MAX_INPUT_BYTES) return 'fail';
    chunks.push(Buffer.from(buffer.subarray(0, n)));
  }
}

/**
 * The source read now, and while it has nothing yet, again every few milliseconds within the
 * wait (counted in polls, not read from a clock a test may hold still). A writer that keeps its
 * end open once it has sent a whole JSON object is not waited for: nothing can follow an object.
 */
function readPolling(source: Source): Promise<string | undefined> {
  const buffer = Buffer.allocUnsafe(64 * 1024);
  const chunks: Buffer[] = [];
  const size = { bytes: 0 };
  let polls = Math.ceil(INPUT_WAIT_MS / POLL_MS);
  return new Promise((resolve) => {
    const step = () => {
      const result = drain(source, buffer, chunks, size);
      const whole = result === 'wait' ? wholeObject(chunks) : undefined;
      if (result === 'wait' && whole === undefined && polls-- > 0) {
        setTimeout(step, POLL_MS);
        return;
      }
      source.close();
      resolve(result === 'end' ? Buffer.concat(chunks).toString('utf8') : whole);
    };
    step();
  });
}

/**
 * The text read so far when it is one whole JSON object (an agent's document, complete); read as
 * text and parsed only once its last byte other than JSON whitespace is the closing brace.
 */
function wholeObject(chunks: readonly Buffer[]): string | undefined {
  if (lastByteNotBlank(chunks) !== CLOSING_BRACE) return undefined;
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    const doc: unknown = JSON.parse(text);
    return typeof doc === 'object' && doc !== null && !Array.isArray(doc) ? text : undefined;
  } catch {
    return undefined;
  }
}

const CLOSING_BRACE = 0x7d;

/** The last byte read other than JSON whitespace (space, tab, line feed, carriage return). */
function lastByteNotBlank(chunks: readonly Buffer[]): number | undefined {
  for (let c = chunks.length - 1; c >= 0; c--) {
    const chunk = chunks[c]!;
    for (let i = chunk.length - 1; i >= 0; i--) {
      const byte = chunk[i]!;
      if (byte !== 32 && byte !== 9 && byte !== 10 && byte !== 13) return byte;
    }
  }
  return undefined;
}

/** Stdin through Node's stream, where it cannot be read otherwise: within a moment, and never more than MAX_INPUT_BYTES. */
function readAsStream(): Promise<string | undefined> {
  return new Promise((resolve) => {
    const stdin = process.stdin;
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (text: string | undefined) => {
      clearTimeout(timer);
      stdin.removeAllListeners('data').removeAllListeners('end');
      // Closed, so that nothing waits on it at exit (the rest of the input is not read).
      stdin.destroy();
      resolve(text);
    };
    const timer = setTimeout(() => finish(undefined), INPUT_WAIT_MS);
    stdin.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_INPUT_BYTES) return finish(undefined);
      chunks.push(chunk);
      const whole = wholeObject(chunks);
      if (whole !== undefined) finish(whole);
    });
    stdin.on('end', () => finish(Buffer.concat(chunks).toString('utf8')));
    stdin.on('error', () => finish(undefined));
  });
}
