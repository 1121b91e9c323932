// How a run goes, wherever the program comes from (`from`: the package's dist/, bin/load-bundle.cjs;
// the single executable's assets, src/sea/entry.cjs): the fast answers first, then the whole
// program; the code caches of a run that ended well; the exit. One file, so that the binary answers
// exactly as `node bin/tally.js` does.
'use strict';
const fs = require('node:fs');

/** The whole program, with the code cache of the command the line runs; undefined (said on stderr) when it cannot load. */
function programFor(argv, from) {
  try {
    const program = from.program(argv);
    if (typeof program.main === 'function') return program;
    throw new Error(`${from.name} has no entry point`);
  } catch (error) {
    const debug = argv.includes('--debug');
    process.stderr.write(`tally: cannot start: the installed program is damaged (${error.message.split('\n')[0]}); reinstall tally (npm install -g llm-tally, or the release binary)\n${debug && error.stack ? `${error.stack}\n` : ''}`);
    return undefined;
  }
}

/** The first words of the command lines dist/fast.cjs may answer without the full program. */
const FAST = new Set(['--version', '-V', 'statusline', 'complete', 'guard']);

/**
 * A fast answer, written straight to file descriptor 1: building process.stdout (its stream
 * classes) costs a tenth of a bare Node start, more than the answer. A closed pipe ends the
 * answer quietly, as it does the full program's output; a pipe that would block (non-blocking,
 * full) takes the rest through process.stdout, which waits for it. True when process.stdout
 * was used.
 */
function writeDirect(text) {
  let bytes = Buffer.from(text);
  try {
    while (bytes.length > 0) bytes = bytes.subarray(fs.writeSync(1, bytes));
    return false;
  } catch (error) {
    if (error.code === 'EPIPE') return false;
    if (error.code !== 'EAGAIN') throw error;
    process.stdout.write(bytes);
    return true;
  }
}

/** A fast answer's stderr (the guard's reason), written straight to file descriptor 2, as stdout's. */
function writeDirectErr(text) {
  let bytes = Buffer.from(text);
  try {
    while (bytes.length > 0) bytes = bytes.subarray(fs.writeSync(2, bytes));
  } catch (error) {
    if (error.code === 'EPIPE') return;
    process.stderr.write(bytes);
  }
}

/**
 * Runs tally and ends the process with its exit code. `--version`, a cached statusline and
 * completion are tried first in dist/fast.cjs (a few kB, no code cache needed); the full bundle
 * loads only when they cannot answer. The code caches this run made are written, then, when
 * nothing is left in the stdout and stderr buffers (their writes were synchronous: files,
 * terminals, pipes on Linux), exiting at once skips the heap tear-down (about 4 ms); otherwise
 * Node drains the streams first. An answer that never touched the streams exits at once.
 */
exports.run = function run(argv, from) {
  const finish = (code, streams = true) => {
    // A run that ended well compiled what that command needs: its cache is worth keeping (an interrupted or failed one, not).
    if (code === 0) from.saveCaches();
    process.exitCode = code;
    if (!streams || (process.stdout.writableLength === 0 && process.stderr.writableLength === 0)) process.exit(code);
  };
  const full = (triedFast) => {
    const program = programFor(argv, from);
    if (!program) return finish(1);
    program.main(argv, { triedFast }).then(finish);
  };
  if (!FAST.has(argv[0])) return void full(false);
  const fast = from.fast(argv);
  if (!fast) return void full(false); // not built (or damaged): the full bundle answers these too
  let streams = false;
  const write = (text) => {
    if (streams) process.stdout.write(text);
    else streams = writeDirect(text);
  };
  fast.answerFast(argv, true, write, writeDirectErr).then(
    (answered) => (answered && typeof answered === 'object' ? finish(answered.exit, streams) : answered ? finish(0, streams || answered === 'streams') : full(true)),
    () => full(true), // the full program reports what went wrong, as one line
  );
};
