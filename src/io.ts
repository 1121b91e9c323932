// The streams a command talks to, and what we know about the terminal behind them.
// Commands never touch process.stdout directly; tests swap in `createTestIO`.
import { Interrupted } from './errors.js';
import type { SecretSet } from './domain/secrets.js';

export interface IO {
  /** Write results (stdout). */
  out(text: string): void;
  /** Write progress, warnings and errors (stderr). */
  err(text: string): void;
  readonly stdoutIsTTY: boolean;
  readonly stderrIsTTY: boolean;
  readonly stdinIsTTY: boolean;
  /** Whether results may carry ANSI colour. */
  readonly color: boolean;
  /** Terminal width in columns (80 when unknown). */
  readonly width: number;
  /** Terminal height in rows (24 when unknown). */
  readonly height: number;
  /** All of standard input as text. */
  readStdin(): Promise<string>;
  /** Ask for a secret on the terminal without echoing it. */
  promptHidden(question: string): Promise<string>;
  /** Why results could not be written (a full disk), once a write to stdout failed. */
  outputFailure?(): NodeJS.ErrnoException | undefined;
  /**
   * Shows text through a pager command (run by the shell, as git runs $PAGER), on the terminal
   * stdout is; false when the pager could not be started (the caller writes the text itself).
   */
  page?(command: string, text: string): Promise<boolean>;
  /** Makes ready what writing results needs (the stream), ahead of the first result. */
  prepare?(): void;
}

/**
 * The one redaction step: every line written to stdout or stderr goes through `secrets` (the key,
 * tokens and other secrets of the run, in every encoding an echo can take).
 */
export function redactingIO(io: IO, secrets: SecretSet): IO {
  const redacting = Object.create(io) as IO;
  return Object.assign(redacting, {
    out: (text: string) => io.out(secrets.size > 0 ? secrets.scrub(text) : text),
    err: (text: string) => io.err(secrets.size > 0 ? secrets.scrub(text) : text),
    ...(io.page && { page: (command: string, text: string) => io.page!(command, secrets.size > 0 ? secrets.scrub(text) : text) }),
  });
}

export interface ColorChoice {
  noColorFlag: boolean;
  env: NodeJS.ProcessEnv;
  isTTY: boolean;
}

/**
 * Whether results may carry colour: --no-color and NO_COLOR win; then FORCE_COLOR (0 or false
 * turns it off, anything else on), CLICOLOR_FORCE (not 0: on), CLICOLOR=0 (off); otherwise colour
 * only on a terminal that is not TERM=dumb.
 */
export function wantsColor({ noColorFlag, env, isTTY }: ColorChoice): boolean {
  if (noColorFlag) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  const force = env.FORCE_COLOR;
  if (force !== undefined) return force !== '0' && force !== 'false';
  if (env.CLICOLOR_FORCE !== undefined && env.CLICOLOR_FORCE !== '' && env.CLICOLOR_FORCE !== '0') return true;
  if (env.CLICOLOR === '0') return false;
  return isTTY && env.TERM !== 'dumb';
}

/**
 * Whether a file descriptor is a terminal, without building its stream: only a character device
 * can be one (a pipe or a file, what scripts and CI give, is answered by one fstat), and only
 * then is node:tty asked. A descriptor that is closed is no terminal.
 */
function isTerminal(fd: number): boolean {
  try {
    return process.getBuiltinModule('node:fs').fstatSync(fd).isCharacterDevice() && process.getBuiltinModule('node:tty').isatty(fd);
  } catch {
    return false;
  }
}

export function createProcessIO(options: { noColorFlag: boolean }): IO {
  // process.stdout, as process.stderr and process.stdin, is built on first use (a file's stream
  // costs ~0.5 ms of a start, a pipe's 1-2 ms): by prepare(), which the program calls on the event
  // loop's first turn (while a command's first request is on its way), or by the first result.
  let stdout: NodeJS.WriteStream | undefined;
  // A closed pipe (`tally pricing | head -1`) ends the run quietly instead of with EPIPE; any
  // other failure to write results (a full disk) is remembered and ends the run with exit 1.
  let failure: NodeJS.ErrnoException | undefined;
  const results = (): NodeJS.WriteStream => {
    if (stdout) return stdout;
    stdout = process.stdout;
    stdout.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
      failure ??= error;
    });
    return stdout;
  };
  let stdoutIsTTY: boolean | undefined;
  const toTerminal = (): boolean => (stdoutIsTTY ??= stdout ? Boolean(stdout.isTTY) : isTerminal(1));
  let color: boolean | undefined;
  let stderr: NodeJS.WriteStream | undefined;
  const errors = (): NodeJS.WriteStream => {
    if (stderr) return stderr;
    stderr = process.stderr;
    stderr.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
      // Nowhere left to say it: the exit code still tells.
      process.exitCode ||= 1;
    });
    return stderr;
  };
  let stderrIsTTY: boolean | undefined;
  return {
    out: (text) => {
      const stream = results();
      if (failure === undefined) stream.write(text);
    },
    err: (text) => void errors().write(text),
    outputFailure: () => failure,
    page: (command, text) => runPager(command, text),
    prepare: () => void results(),
    get stdoutIsTTY() {
      return toTerminal();
    },
    get stderrIsTTY() {
      stderrIsTTY ??= stderr ? Boolean(stderr.isTTY) : isTerminal(2);
      return stderrIsTTY;
    },
    // node:tty (with net behind it) costs milliseconds to load: only a prompt asks this.
    get stdinIsTTY() {
      return process.getBuiltinModule('node:tty').isatty(0);
    },
    get color() {
      color ??= wantsColor({ noColorFlag: options.noColorFlag, env: process.env, isTTY: toTerminal() });
      return color;
    },
    // A terminal's size as it is now (a window resized under --watch is drawn to its new size).
    get width() {
      return (toTerminal() && results().columns) || Number(process.env.COLUMNS) || 80;
    },
    get height() {
      return (toTerminal() && results().rows) || Number(process.env.LINES) || 24;
    },
    readStdin: () => readAll(process.stdin),
    promptHidden: (question) => promptHidden(question),
  };
}

function runPager(command: string, text: string): Promise<boolean> {
  const { spawn } = process.getBuiltinModule('node:child_process');
  return new Promise((resolve) => {
    let started = false;
    // less without options of the user's own: quit when it fits, keep colour, keep the screen.
    const child = spawn('sh', ['-c', command], { stdio: ['pipe', 'inherit', 'inherit'], env: { ...process.env, LESS: process.env.LESS ?? 'FRX' } });
    child.on('spawn', () => (started = true));
    child.on('error', () => resolve(false));
    // The reader may quit before reading it all (q in less): that is no error.
    child.stdin.on('error', () => undefined);
    child.on('close', (code) => resolve(started && code !== 127 && code !== 126));
    child.stdin.end(text);
  });
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

function promptHidden(question: string): Promise<string> {
  const { stdin, stderr } = process;
  stderr.write(question);
  return new Promise((resolve, reject) => {
    let value = '';
    const wasRaw = stdin.isRaw;
    const finish = (error?: Error) => {
      stdin.setRawMode?.(wasRaw);
      stdin.off('data', onData);
      stdin.pause();
      stderr.write('\n');
      if (error) reject(error);
      else resolve(value);
    };
    const onData = (data: Buffer) => {
      for (const char of data.toString('utf8')) {
        if (char === '\r' || char === '\n' || char === '\u0004') return finish();
        if (char === '\u0003') return finish(new Interrupted('interrupted'));
        if (char === '\u007f' || char === '\b') value = value.slice(0, -1);
        else value += char;
      }
    };
    stdin.setRawMode?.(true);
    stdin.resume();
    stdin.on('data', onData);
  });
}

export interface TestIO extends IO {
  readonly stdout: string;
  readonly stderr: string;
}

/** An IO that records what a command wrote; for tests. */
export function createTestIO(options: Partial<Pick<IO, 'stdoutIsTTY' | 'stderrIsTTY' | 'stdinIsTTY' | 'color' | 'width' | 'height'>> & { stdin?: string; answers?: string[] } = {}): TestIO {
  let stdout = '';
  let stderr = '';
  const answers = [...(options.answers ?? [])];
  return {
    out: (text) => void (stdout += text),
    err: (text) => void (stderr += text),
    get stdout() { return stdout; },
    get stderr() { return stderr; },
    stdoutIsTTY: options.stdoutIsTTY ?? false,
    stderrIsTTY: options.stderrIsTTY ?? false,
    stdinIsTTY: options.stdinIsTTY ?? false,
    color: options.color ?? false,
    width: options.width ?? 100,
    height: options.height ?? 24,
    readStdin: async () => options.stdin ?? '',
    promptHidden: async (question) => {
      stderr += question + '\n';
      return answers.shift() ?? '';
    },
  };
}
