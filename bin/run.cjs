// How a run goes, wherever the program comes from (`from`: the package's dist/, bin/load-bundle.cjs;
// the single executable's assets, src/sea/entry.cjs): which bundle runs the line, the fast answers
// first, then the whole program; the code caches of a run that ended well; the exit. One file
// (one module for the launcher to load), so that the binary answers exactly as `node bin/tally.js`
// does.
//
// Which bundle runs a command line: the command word (the line's first word that is no option,
// past the values of the global options that take one, as the parser finds it), and whether the
// command has a bundle of its own. A help line runs in the whole program (it lists every command),
// as does one that redraws a terminal (--watch) or runs over profiles; where the command bundles
// leave the in-process sandbox out (the package's), so does a line with --demo.
'use strict';
const fs = require('node:fs');

/** Where the command word of a command line is (its first word that is no option), or -1 where it has none. */
function commandAt(argv, takesValue) {
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i];
    if (word === '--') break;
    if (word.startsWith('-')) {
      if (!word.includes('=') && takesValue.includes(word)) i++;
      continue;
    }
    return i;
  }
  return -1;
}

/** The command word of a command line (its first word that is no option): it names the bundle and its code cache. */
function commandWord(argv, takesValue) {
  const at = commandAt(argv, takesValue);
  if (at < 0) return 'none';
  return /^[a-z][a-z-]{0,31}$/.test(argv[at]) ? argv[at] : 'other';
}

/** The routes the build wrote (dist/commands.json's text), or none when they are not what it writes. */
function readRoutes(text) {
  const none = { valueFlags: [], commands: [], shared: {} };
  try {
    const launch = JSON.parse(text ?? 'null');
    const words = (list, pattern) => (Array.isArray(list) && list.every((item) => typeof item === 'string' && pattern.test(item)) ? list : undefined);
    const valueFlags = words(launch?.valueFlags, /^-{1,2}[a-z][a-z-]*$/);
    const commands = words(launch?.commands, /^[a-z][a-z-]{0,31}$/);
    // The bundles commands share, by name; absent (an older build's), none.
    const shared = launch?.shared ?? {};
    const sharing = shared !== null && typeof shared === 'object' && !Array.isArray(shared) && Object.entries(shared).every(([name, list]) => /^[a-z][a-z-]{0,31}$/.test(name) && !commands?.includes(name) && words(list, /^[a-z][a-z-]{0,31}$/));
    return valueFlags && commands && sharing ? { valueFlags, commands, shared } : none;
  } catch {
    return none;
  }
}

/**
 * The options whose lines the command bundles leave to the whole program (scripts/bundle-options.mjs
 * leanCommandBundle): a terminal that redraws (--watch) and the loop over profiles. (--demo too:
 * the in-process sandbox is the whole program's.)
 */
const WHOLE_PROGRAM = new Set(['--watch', '--all-profiles', '--profiles', '--demo']);
const HELP = new Set(['--help', '-h']);

/**
 * The command word, and the name of its bundle (`command-NAME.cjs`) where it has one: its own (an
 * everyday command), or one it shares with others (`shared`: then one code cache, of every kind of
 * line run there, named by the bundle); else undefined (the whole program). A help flag after the
 * command word asks for that command's help, which its bundle gives (`tally balance --help`); one
 * before it (`tally --help balance`) asks for the program's, which lists every command: the whole
 * program's.
 */
function route(argv, routes) {
  const at = commandAt(argv, routes.valueFlags);
  const word = commandWord(argv, routes.valueFlags);
  const end = argv.indexOf('--');
  const options = end < 0 ? argv : argv.slice(0, end);
  const whole = options.some((a, i) => WHOLE_PROGRAM.has(a.split('=')[0]) || (HELP.has(a) && i < at));
  const help = options.some((a) => HELP.has(a));
  const group = routes.commands.includes(word) ? undefined : Object.keys(routes.shared).find((name) => routes.shared[name].includes(word));
  const name = group ?? (routes.commands.includes(word) ? word : undefined);
  return { word, help, shared: group !== undefined, name, own: name !== undefined && !whole ? `command-${name}.cjs` : undefined };
}

exports.commandWord = commandWord;
exports.readRoutes = readRoutes;
exports.route = route;

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

/**
 * The wrapper Node's CommonJS loader puts around a module, which the launchers compile a bundle in.
 * The build writes the bundles with it already around them (scripts/build.mjs): the text read is
 * then compiled as it is, where joining it to the wrapper made V8 copy the whole text again (a
 * third of a megabyte of fresh memory for balance's bundle, measured at ~1.5 ms of page faults).
 */
const WRAPPER = ['(function (exports, require, module, __filename, __dirname) {', '\n})'];
exports.WRAPPER = WRAPPER;

/** A bundle's text as the launchers compile it: wrapped, unless the build wrapped it already. */
exports.wrapped = (text) => (text.startsWith(WRAPPER[0]) ? text : `${WRAPPER[0]}${text}${WRAPPER[1]}`);

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
 * Whether process.stderr has been built yet (its getter is watched): the exit asks whether it has
 * text left to write without building it, which costs 1-2 ms for a pipe in a run that wrote
 * nothing there. Where the getter cannot be watched, it counts as built.
 */
function watchStderr() {
  const descriptor = Object.getOwnPropertyDescriptor(process, 'stderr');
  if (typeof descriptor?.get !== 'function' || !descriptor.configurable) return () => true;
  let built = false;
  Object.defineProperty(process, 'stderr', {
    ...descriptor,
    get() {
      built = true;
      return descriptor.get.call(this);
    },
  });
  return () => built;
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
  const stderrBuilt = watchStderr();
  const finish = (code, streams = true) => {
    // A run that ended well compiled what that command needs: its cache is worth keeping (an interrupted or failed one, not).
    if (code === 0) from.saveCaches();
    process.exitCode = code;
    if (!streams || (process.stdout.writableLength === 0 && (!stderrBuilt() || process.stderr.writableLength === 0))) process.exit(code);
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
