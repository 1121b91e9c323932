// Loads dist/main.cjs the way Node's require would, but through node:vm with a V8 code cache:
// compiling the bundle is then skipped (a fifth of a run).
// A code cache is only good for the Node that made it, so none is shipped: the first run on a
// Node version and architecture makes one in tally's cache folder (the state folder's
// cache/code/NODE-ARCH/), named by the bundle's content hash, and later runs read it. A cache
// that is missing, rejected, unreadable or unwritable (a read-only folder) only costs time.
//
// Every file read here is opened as a regular file, without blocking, and of a bounded size: a
// FIFO or a device in place of the bundle, a cache or the list of options never holds a run. A
// damaged install (the fast answers' module missing or not a file, the option list not what the
// build writes) falls back to the whole program; when that cannot load, one line says so and how
// to mend it (the stack only with --debug).
'use strict';
const fs = require('node:fs');
const { dirname, join } = require('node:path');
const vm = require('node:vm');

const dist = join(__dirname, '..', 'dist');
/** The whole program: every command. */
const bundle = join(dist, 'main.cjs');
/** No bundle, cache or list of routes tally writes is near this: anything larger is not one. */
const MAX_FILE_BYTES = 64 * 1024 * 1024;

/** A regular file's bytes, opened without blocking; undefined for anything else (missing, a FIFO, a device, too large). */
function readRegular(file, max = MAX_FILE_BYTES) {
  let fd;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
    const stat = fs.fstatSync(fd);
    if (!stat.isFile() || stat.size > max) return undefined;
    const bytes = Buffer.allocUnsafe(stat.size);
    let done = 0;
    while (done < stat.size) {
      const n = fs.readSync(fd, bytes, done, stat.size - done, null);
      if (n === 0) break;
      done += n;
    }
    return done === stat.size ? bytes : bytes.subarray(0, done);
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** The state folder, as tally chooses it: TALLY_CONFIG_DIR, else the per-OS config folder (env-paths' rule). */
function stateDir(env = process.env) {
  if (env.TALLY_CONFIG_DIR) return env.TALLY_CONFIG_DIR;
  const home = require('node:os').homedir();
  if (process.platform === 'darwin') return join(home, 'Library', 'Preferences', 'tally');
  if (process.platform === 'win32') return join(env.APPDATA || join(home, 'AppData', 'Roaming'), 'tally', 'Config');
  return join(env.XDG_CONFIG_HOME || join(home, '.config'), 'tally');
}

/**
 * Where a bundle's code cache for this Node is kept: by the Node version, the architecture, the
 * bundle's content and the command it ran (a cache holds the functions its first run compiled:
 * one per command, so each command finds its own code compiled).
 */
function cachePath(file, source, command) {
  const hash = require('node:crypto').createHash('sha1').update(source).digest('hex').slice(0, 16);
  return join(stateDir(), 'cache', 'code', `${process.version}-${process.arch}`, `${file.replace(/.*[\\/]/, '')}-${hash}-${command}.cache`);
}

/** The command word of a command line (its first word that is no option), for the name of its code cache. */
function commandWord(argv, takesValue) {
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i];
    if (word === '--') break;
    if (word.startsWith('-')) {
      if (!word.includes('=') && takesValue.includes(word)) i++;
      continue;
    }
    return /^[a-z][a-z-]{0,31}$/.test(word) ? word : 'other';
  }
  return 'none';
}

function compile(file, source, cachedData) {
  // The same wrapper as Node's CommonJS loader.
  const wrapper = `(function (exports, require, module, __filename, __dirname) {${source.toString('utf8')}\n})`;
  return new vm.Script(wrapper, { filename: file, cachedData });
}

// import() has no loader inside vm-compiled code (and the small bundles turn theirs into
// require(), which cannot load an ES module): the bundles ask for this one instead.
globalThis.__tallyImport = (specifier) => import(require.resolve(specifier, { paths: [dist] })).catch(() => import(specifier));
// Where such a package's file is, for code that loads it elsewhere (jq in a worker thread).
globalThis.__tallyResolve = (specifier) => require.resolve(specifier, { paths: [dist] });
// The package's own folder (schemas/ is shipped there).
globalThis.__tallyRoot = join(__dirname, '..');

function run(script, file) {
  const module = { exports: {} };
  // The launcher's own require: bin/ and dist/ sit side by side, so packages resolve alike, and
  // node:module (createRequire), with its source-map machinery, need not load.
  script.runInThisContext()(module.exports, require, module, file, dirname(file));
  return module.exports;
}

/** Code caches to write once the run is done (they then hold the functions the run compiled too). */
const pendingCaches = [];

/**
 * A bundle's exports (the whole program's by default), compiled from this Node's code cache when
 * there is one that fits; without one (or with one V8 rejects), a new one is written after the run.
 * Throws when the bundle is not there or does not compile.
 */
exports.load = function load(file = bundle, command = 'none') {
  const source = readRegular(file);
  if (!source || source.length === 0) throw new Error(`${file} is missing or not a file tally wrote`);
  let path;
  try {
    path = cachePath(file, source, command);
  } catch {
    // No home folder, no hash: the bundle runs without a cache.
  }
  const cachedData = path === undefined ? undefined : readRegular(path);
  const script = compile(file, source, cachedData);
  if (path !== undefined && (cachedData === undefined || script.cachedDataRejected)) pendingCaches.push({ script, path });
  return run(script, file);
};

/** Writes the code caches this run made (atomically; a folder that cannot be written is no cache, never an error). */
function saveCaches() {
  for (const { script, path } of pendingCaches.splice(0)) {
    try {
      const folder = dirname(path);
      // tally's own folders are never followed through a link: each one that exists is looked at before anything is made in it.
      const code = dirname(folder);
      const cache = dirname(code);
      for (const dir of [dirname(cache), cache, code, folder]) {
        let stat;
        try {
          stat = fs.lstatSync(dir);
        } catch {
          continue;
        }
        if (stat.isSymbolicLink() || !stat.isDirectory()) return;
      }
      // The state folder itself as the user named it (made with its parents where missing); tally's own below it, one by one.
      fs.mkdirSync(dirname(cache), { recursive: true, mode: 0o700 });
      for (const dir of [cache, code, folder]) {
        try {
          fs.mkdirSync(dir, { mode: 0o700 });
        } catch (error) {
          if (error.code !== 'EEXIST') throw error;
        }
        if (fs.lstatSync(dir).isSymbolicLink()) return;
      }
      const temporary = `${path}.${process.pid}.tmp`;
      fs.writeFileSync(temporary, script.createCachedData(), { mode: 0o600, flag: 'wx' });
      fs.renameSync(temporary, path);
      prune(code, folder, path);
    } catch {
      // A read-only or full disk, a race with another run: the next run makes it.
    }
  }
}

/** Code caches left unused this long (of a Node no longer run) are removed. */
const UNUSED_MS = 30 * 24 * 3600 * 1000;

/**
 * The cache folder stays within a few MB: in this Node's folder, the caches of other builds of the
 * bundle (another content hash) go once a cache of this build is written; another Node's folder
 * goes once none of its caches was written or read for 30 days.
 */
function prune(code, folder, written) {
  const build = written.replace(/.*[\\/]/, '').replace(/-[a-z][a-z-]*\.cache$/, '');
  for (const name of fs.readdirSync(folder)) {
    if (!name.endsWith('.cache') || name.startsWith(`${build}-`)) continue;
    try {
      fs.unlinkSync(join(folder, name));
    } catch {
      // Another run's, gone already.
    }
  }
  const now = Date.now();
  for (const name of fs.readdirSync(code)) {
    const other = join(code, name);
    if (other === folder) continue;
    try {
      const stat = fs.lstatSync(other);
      if (!stat.isDirectory() || stat.isSymbolicLink()) continue;
      const newest = Math.max(stat.mtimeMs, ...fs.readdirSync(other).map((f) => fs.lstatSync(join(other, f)).atimeMs));
      if (now - newest > UNUSED_MS) fs.rmSync(other, { recursive: true, force: true });
    } catch {
      // Being written by another run: kept.
    }
  }
}

/** The global options that take a value, as the build wrote them (to find the command word as the parser does); none when the file is not what it writes. */
function valueFlags() {
  try {
    const launch = JSON.parse(readRegular(join(dist, 'commands.json'), 64 * 1024)?.toString('utf8') ?? 'null');
    const list = launch?.valueFlags;
    return Array.isArray(list) && list.every((item) => typeof item === 'string' && /^-{1,2}[a-z][a-z-]*$/.test(item)) ? list : [];
  } catch {
    return [];
  }
}

/** The fast answers' module, when it is a file the build wrote (not a FIFO, not missing). */
function fastModule() {
  const file = join(dist, 'fast.cjs');
  if (!readRegular(file, 1024 * 1024)) return undefined;
  try {
    return require(file);
  } catch {
    return undefined;
  }
}

/** Where the program comes from: the package's dist/ (the single executable has its own assets, src/sea/entry.cjs). */
const installed = {
  name: bundle,
  fast: fastModule,
  program: (argv) => exports.load(bundle, commandWord(argv, valueFlags())),
  saveCaches,
};

/** Runs tally from the package's dist/ and ends the process with its exit code (bin/run.cjs). */
exports.run = (argv) => require('./run.cjs').run(argv, installed);

/** For the build: the state folder the caches go to (its own rule, tested against the program's). */
exports.stateDir = stateDir;
