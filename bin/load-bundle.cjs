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
const { readRoutes, route, run: runLine, wrapped } = require('./run.cjs');

const dist = join(__dirname, '..', 'dist');
/** The whole program: every command. */
const bundle = join(dist, 'main.cjs');
/** No bundle, cache or list of routes tally writes is near this: anything larger is not one. */
const MAX_FILE_BYTES = 64 * 1024 * 1024;

/**
 * A regular file's bytes, opened without blocking; undefined for anything else (missing, a FIFO, a
 * device, too large). `opened` sees the open file first, and may ask for room to spare (the
 * size of a file to be read next into the same memory). `into`: memory to read into when it has
 * room (its bytes are overwritten). Fresh memory costs a page fault per 4 kB touched, which on
 * some machines (virtual ones) is ~15 us apiece: a bundle's cache read where its text was read,
 * once that is a string, saves a third of a megabyte of them.
 */
function readRegular(file, max = MAX_FILE_BYTES, { opened, into } = {}) {
  let fd;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
    const stat = fs.fstatSync(fd);
    if (!stat.isFile() || stat.size > max) return undefined;
    const room = Math.min(opened?.(fd) ?? 0, max);
    // Never a pooled buffer (allocUnsafeSlow): memory read into again belongs to this file alone.
    const bytes = into && into.buffer.byteLength - into.byteOffset >= stat.size ? Buffer.from(into.buffer, into.byteOffset, stat.size) : Buffer.allocUnsafeSlow(Math.max(stat.size, room)).subarray(0, stat.size);
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

/** Whether a path is a regular file (not missing, not a FIFO or a device), without opening it. */
function isRegularFile(file) {
  try {
    return fs.statSync(file, { throwIfNoEntry: false })?.isFile() === true;
  } catch {
    return false;
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
 * install, the bundle file as it is now and the command it ran (a cache holds the functions its
 * first run compiled: one per command, so each command finds its own code compiled). The file is
 * known by its inode, size and change times (any write to it moves its ctime, which no one can set
 * back): a bundle replaced or changed in place, even to the same length, gets a cache of its own.
 * Not a hash of its content: reading node:crypto and hashing a megabyte cost more than the cache
 * saves of some commands. The install is its dist/ folder's path, hashed (two installs sharing a
 * state folder, a global one and npx's, keep their caches apart instead of removing each other's).
 */
function cachePath(file, fd, command) {
  const stat = fs.fstatSync(fd, { bigint: true });
  const build = [stat.ino, stat.size, stat.mtimeNs, stat.ctimeNs].map((n) => n.toString(36)).join('.');
  return join(stateDir(), 'cache', 'code', `${process.version}-${process.arch}`, `${file.replace(/.*[\\/]/, '')}-${INSTALL}-${build}-${command}.cache`);
}

/** FNV-1a (32 bits) of a text, in base 36: a short name of a folder, not a secret. */
function fnv1a(text) {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return hash.toString(36);
}
/** This install: its dist/ folder. */
const INSTALL = fnv1a(dist);

function compile(file, text, cachedData) {
  // In the same wrapper as Node's CommonJS loader (the build's bundles come with it).
  return new vm.Script(wrapped(text), { filename: file, cachedData });
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
 * A code cache file: a first line naming the kinds of command lines whose runs it holds the code
 * of (`tally-cache report budget balance:help`), padded so that V8's data after it stays aligned
 * (V8 copies data that is not), then V8's data. One without that line (an older tally's) holds
 * none by name.
 */
const CACHE_HEAD = 'tally-cache ';
/** The kinds a cache names, at most: past them it takes in no more. */
const MAX_KINDS = 24;

/** A cache file's kinds and V8's data. */
function readCacheFile(bytes) {
  if (bytes.length > CACHE_HEAD.length && bytes.toString('latin1', 0, CACHE_HEAD.length) === CACHE_HEAD) {
    const end = bytes.subarray(0, 4096).indexOf(10);
    if (end > 0) return { kinds: bytes.toString('latin1', CACHE_HEAD.length, end).split(' ').filter(Boolean), data: bytes.subarray(end + 1) };
  }
  return { kinds: [], data: bytes };
}

/** The first line of a cache file naming these kinds, its length a multiple of 16 bytes. */
function cacheHead(kinds) {
  const line = `${CACHE_HEAD}${kinds.join(' ')}`;
  return Buffer.from(`${line.padEnd(Math.ceil((line.length + 1) / 16) * 16 - 1)}\n`, 'latin1');
}

/**
 * A bundle's exports (the whole program's by default), compiled from this Node's code cache when
 * there is one that fits; without one (or with one V8 rejects), a new one is written after the run.
 * `kind`: the kind of command line this run is (its command word, and `:help` for a help line).
 * The whole program, and a bundle commands share (`takesIn`), keeps one cache for all the lines it
 * runs: after a kind of line it has not run before ends well, the kind is named in it, and where
 * that run compiled much the cache did not hold (a line that is not the first one's kind: a
 * report after a completion script), V8's data is made again, holding both (saveCaches). A
 * command's own bundle keeps the cache of its runs: a help line neither makes nor changes it (the
 * help's code would make each run's cache larger to read).
 * Throws when the bundle is not there or does not compile.
 */
exports.load = function load(file = bundle, command = 'none', kind = command, takesIn = file === bundle) {
  let path;
  const source = readRegular(file, MAX_FILE_BYTES, {
    opened: (fd) => {
      try {
        path = cachePath(file, fd, command);
        return fs.statSync(path, { throwIfNoEntry: false })?.size;
      } catch {
        // No home folder: the bundle runs without a cache.
        return undefined;
      }
    },
  });
  if (!source || source.length === 0) throw new Error(`${file} is missing or not a file tally wrote`);
  // The bundles are ASCII only (the build refuses anything else): read as Latin-1, the bytes become V8's one-byte string as they are, without decoding UTF-8.
  const text = source.toString('latin1');
  const cached = path === undefined ? undefined : readRegular(path, MAX_FILE_BYTES, { into: source });
  const { kinds, data } = cached === undefined ? { kinds: [], data: undefined } : readCacheFile(cached);
  const script = compile(file, text, data);
  if (path !== undefined) {
    // Made where there is none that fits (but by a help line in a command's own bundle); a kind new to a shared one, taken in (`held`: its data now).
    if (data === undefined || script.cachedDataRejected) {
      if (takesIn || !kind.endsWith(':help')) pendingCaches.push({ script, path, kinds: [kind] });
    } else if (takesIn && kinds.length < MAX_KINDS && !kinds.includes(kind)) pendingCaches.push({ script, path, kinds: [...kinds, kind], held: data });
  }
  return run(script, file);
};

/**
 * A run this long (a --watch, a server) compiled what it needs long ago, and V8 may have dropped
 * the code of what it ran only at its start: it makes a missing cache, but takes nothing into one.
 */
const TAKE_IN_WITHIN_S = 10;
/** A run's code is taken into a cache that holds other kinds of lines when it adds this much to it. */
const TAKE_IN_BYTES = 64 * 1024;

/** Writes the code caches this run made (atomically; a folder that cannot be written is no cache, never an error). */
function saveCaches() {
  for (const { script, path, kinds, held } of pendingCaches.splice(0)) {
    if (held !== undefined && process.uptime() > TAKE_IN_WITHIN_S) continue;
    try {
      const data = script.createCachedData();
      // What the run compiled beyond the cache it read is taken in only where it is much: every
      // run of the bundle reads the whole cache (measured: ~1.3 ms per 100 kB), where a line that
      // needs little more compiles that little itself (~4 ms per 100 kB, its own runs only). The
      // kind is named either way, with the data as it was where the run added less.
      const written = held === undefined || data.length - held.length >= TAKE_IN_BYTES ? data : held;
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
      fs.writeFileSync(temporary, Buffer.concat([cacheHead(kinds), written]), { mode: 0o600, flag: 'wx' });
      fs.renameSync(temporary, path);
      prune(code, folder);
    } catch {
      // A read-only or full disk, a race with another run: the next run makes it.
    }
  }
}

/** Code caches left unused this long (of a Node no longer run) are removed. */
const UNUSED_MS = 30 * 24 * 3600 * 1000;
/**
 * The code caches of every Node together stay within this: this Node's own (~4 MB once every
 * command ran) and, in the room left, the Nodes used most lately (someone switching between two
 * Nodes for the everyday commands, ~2 MB each, keeps both).
 */
const BUDGET_BYTES = 6 * 1024 * 1024;

/** The bytes of a folder's files, and when one was last written or read. */
function folderUse(dir) {
  const stat = fs.lstatSync(dir);
  let bytes = 0;
  let newest = stat.mtimeMs;
  for (const name of fs.readdirSync(dir)) {
    const file = fs.lstatSync(join(dir, name));
    bytes += file.size;
    newest = Math.max(newest, file.atimeMs, file.mtimeMs);
  }
  return { bytes, newest };
}

/**
 * The cache folder stays within a few MB: in this Node's folder, a cache of this install goes once
 * it belongs to no bundle of it as it is now (another build, a bundle no longer shipped), as soon
 * as a cache of this build is written; another install's caches, and another Node's folder, go once
 * none was written or read for 30 days, or, least lately used first, while all of them together
 * are over the budget.
 */
function prune(code, folder) {
  const current = new Map();
  const currentOf = (name) => {
    if (!current.has(name)) {
      let id;
      let fd;
      try {
        fd = fs.openSync(join(dist, name), fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
        id = cachePath(join(dist, name), fd, 'x').replace(/.*[\\/]/, '').replace(/-x\.cache$/, '');
      } catch {
        id = undefined;
      } finally {
        if (fd !== undefined) fs.closeSync(fd);
      }
      current.set(name, id);
    }
    return current.get(name);
  };
  const now = Date.now();
  // What stays in this Node's folder counts toward the budget; other installs' caches may yet go under it.
  let total = 0;
  const others = [];
  for (const name of fs.readdirSync(folder)) {
    if (!name.endsWith('.cache')) continue;
    const path = join(folder, name);
    const [, bundleName, install] = /^([\w.-]+?\.cjs)-([0-9a-z]+)-/.exec(name) ?? [];
    try {
      const stat = fs.lstatSync(path);
      if (bundleName && currentOf(bundleName) && name.startsWith(`${currentOf(bundleName)}-`)) {
        total += stat.size;
        continue;
      }
      // Another install's (a global one beside npx's): it goes as another Node's folder does.
      const used = Math.max(stat.atimeMs, stat.mtimeMs);
      if (install !== undefined && install !== INSTALL && now - used <= UNUSED_MS) {
        others.push({ path, bytes: stat.size, newest: used });
        total += stat.size;
        continue;
      }
      // This install's caches of a build no longer here, and anything not named as tally names them.
      fs.unlinkSync(path);
    } catch {
      // Another run's, gone already.
    }
  }
  for (const name of fs.readdirSync(code)) {
    const other = join(code, name);
    if (other === folder) continue;
    try {
      const stat = fs.lstatSync(other);
      if (!stat.isDirectory() || stat.isSymbolicLink()) continue;
      const use = folderUse(other);
      if (now - use.newest > UNUSED_MS) fs.rmSync(other, { recursive: true, force: true });
      else {
        others.push({ path: other, ...use });
        total += use.bytes;
      }
    } catch {
      // Being written by another run: kept.
    }
  }
  // Over the budget: the Nodes (and other installs' caches) used least lately go first, never this install's on this Node.
  others.sort((a, b) => a.newest - b.newest);
  for (const other of others) {
    if (total <= BUDGET_BYTES) break;
    try {
      fs.rmSync(other.path, { recursive: true, force: true });
      total -= other.bytes;
    } catch {
      // Being written by another run: kept, and looked at again on the next write.
    }
  }
}

/** The bundle a command line runs in: its command's own (an everyday command), else the whole program; with the word naming its cache. */
function bundleFor(argv) {
  const routes = readRoutes(readRegular(join(dist, 'commands.json'), 64 * 1024)?.toString('utf8'));
  const { word, own, help, shared, name } = route(argv, routes);
  return { file: own ? join(dist, own) : bundle, word, help, shared, name };
}
exports.bundleFor = bundleFor;

/** The fast answers' module, when it is a file the build wrote (not a FIFO, not missing); its parts load from their code caches. */
function fastModule(argv) {
  globalThis.__tallyLoadPart = (name) => exports.load(join(dist, name), /^[a-z][a-z-]{0,31}$/.test(argv[0] ?? '') ? argv[0] : 'fast');
  const file = join(dist, 'fast.cjs');
  // A regular file (a FIFO would hold require's read), looked at without reading it (require reads it).
  if (!isRegularFile(file)) return undefined;
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
  program: (argv) => {
    const { file, word, help, shared, name } = bundleFor(argv);
    const kind = help ? `${word}:help` : word;
    // A command's bundle that is missing or damaged: the whole program runs the line.
    if (file !== bundle) {
      try {
        return exports.load(file, name, kind, shared);
      } catch {
        // fall through
      }
    }
    // The whole program keeps one cache for every command it runs (the everyday ones have their
    // own bundles and caches), taking in each kind of line as it first runs (load): a cache of
    // each rare command would cost 0.6-0.8 MB apiece on disk per Node version.
    return exports.load(bundle, 'main', kind);
  },
  saveCaches,
};

/** Runs tally from the package's dist/ and ends the process with its exit code (bin/run.cjs). */
exports.run = (argv) => runLine(argv, installed);

/** For the build: the state folder the caches go to (its own rule, tested against the program's). */
exports.stateDir = stateDir;
