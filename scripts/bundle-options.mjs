// What the package's build (scripts/build.mjs) and the single executable's (scripts/build-binary.mjs)
// bundle alike: esbuild's settings and the plugins both use.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

export const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

// commander requires node:child_process when it loads (with net, dgram and streams behind it,
// ~2 ms of every run), yet uses it only to spawn executable subcommands, which tally has
// none of. Its copy is a getter that loads the module on first use.
export const lazyChildProcess = {
  name: 'lazy-child-process',
  setup(build) {
    build.onResolve({ filter: /^(node:)?child_process$/ }, (args) =>
      /[\\/]node_modules[\\/]commander[\\/]/.test(args.importer) ? { path: 'child_process', namespace: 'lazy' } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'lazy' }, () => ({
      contents: "module.exports = { get spawn() { return require('node:child_process').spawn; } };",
      loader: 'js',
    }));
  },
};

/**
 * decimal.js turns two 1,025-digit constants (ln 10 and pi) into Decimals when it loads: a
 * millisecond and 22 kB of young memory of every start, for the logarithms and trigonometry tally
 * never asks of it on the way to an answer. Here each becomes a Decimal the first time a
 * computation needs it, made exactly as the module made it (by the first constructor, with its
 * range checks on). The text replaced is checked: a decimal.js that differs fails the build.
 */
export const lazyDecimalConstants = {
  name: 'lazy-decimal-constants',
  setup(build) {
    build.onLoad({ filter: /[\\/]node_modules[\\/]decimal\.js[\\/]decimal\.mjs$/ }, (args) => ({ contents: lazyConstants(readFileSync(args.path, 'utf8'), args.path), loader: 'js' }));
  },
};

/** decimal.mjs's text with its constants made on first use (lazyDecimalConstants). */
export function lazyConstants(text, path = 'decimal.mjs') {
  const edits = [
    ['\n// Create the internal constants from their string values.\nLN10 = new Decimal(LN10);\nPI = new Decimal(PI);\n', '\n'],
    ['return finalise(new Ctor(LN10), sd, 1, true);', 'return finalise(new Ctor(LN10 = constantOf(LN10)), sd, 1, true);'],
    ['return finalise(new Ctor(PI), sd, rm, true);', 'return finalise(new Ctor(PI = constantOf(PI)), sd, rm, true);'],
  ];
  // The package's file has CRLF line ends (JavaScript reads either alike).
  let out = text.replace(/\r\n/g, '\n');
  for (const [from, to] of edits) {
    if (out.split(from).length !== 2) throw new Error(`${path}: "${from.trim().slice(0, 60)}" is not there once; lazyDecimalConstants (scripts/bundle-options.mjs) fits decimal.js 10.x`);
    out = out.replace(from, to);
  }
  return `${out}
// tally's build: a constant given as its digits becomes a Decimal on first use, as the module made it when it loaded.
function constantOf(value) {
  if (typeof value !== 'string') return value;
  var was = external;
  external = true;
  try {
    return new Decimal(value);
  } finally {
    external = was;
  }
}
`;
}

/** The dependencies the package leaves in node_modules, loaded with import() only when a command needs them (src/external.ts). */
export const EXTERNAL = ['undici', 'conf', 'jq-wasm', 'selfsigned', 'nodemailer', '@modelcontextprotocol/server', '@modelcontextprotocol/server/stdio'];

export const common = {
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  minifyWhitespace: true,
  minifySyntax: true,
  sourcemap: 'linked',
  legalComments: 'none',
  // import.meta.url is read only when running from source (external.ts); the bundle has the launcher's resolver.
  define: { __TALLY_VERSION__: JSON.stringify(version), 'import.meta.url': 'undefined' },
  external: EXTERNAL,
  logLevel: 'warning',
};

/** The commands run every day, in CI and by scripts: each has a bundle of its own (bin/run.cjs routes a line to it by the command word). */
export const EVERYDAY = ['balance', 'usage', 'status', 'forecast', 'check', 'logs', 'models', 'pricing'];

/** The launcher's word for a line with no command word (`tally`, `tally --help`): bin/run.cjs commandWord. */
export const NO_COMMAND = 'none';

/**
 * Commands that share a bundle of their own, by the bundle's name (`dist/command-NAME.cjs`): the
 * ones that keep to tally's own files and settings (budgets, destinations, groups, marks, settings,
 * schemas, credentials, the version, the shell's completion script), and a line with no command word (the program's help, which
 * describes every command from the registry and loads none). Each is light, and none is run every day: in the whole
 * program (1.2 MB) a line of theirs read and deserialised four times what it runs, and started
 * slower than the build of f29dbd6 did (`config list` 1.06x). One bundle keeps one code cache for
 * all of them (bin/load-bundle.cjs), where a bundle each would keep one each.
 */
export const SHARED = { local: [NO_COMMAND, 'budget', 'notify', 'group', 'mark', 'config', 'schema', 'auth', 'login', 'logout', 'version', 'completion'] };

/**
 * The program with every command's loader but those of these command words left out (the launcher
 * sends only their lines to the bundle). A registry entry is kept by its name's first word
 * (`auth status` by `auth`).
 */
export function onlyTheseCommands(words) {
  const keep = new Set(words);
  return {
    name: 'only-these-commands',
    setup(build) {
      build.onLoad({ filter: /[\\/]src[\\/]cli[\\/]registry\.ts$/ }, (args) => {
        const text = readFileSync(args.path, 'utf8');
        const kept = new Set();
        const contents = text
          .split('\n')
          .map((line) => {
            const word = /name: '([^' ]+)/.exec(line)?.[1];
            if (word && keep.has(word)) {
              if (line.includes("import('../commands/")) kept.add(word);
              return line;
            }
            return line.replace(/import\('\.\.\/commands\/([\w-]+)\.js'\)/g, (whole, file) => `Promise.reject(new Error('${file} is not in the bundle of ${[...keep].join(', ')}'))`);
          })
          .join('\n');
        const missing = [...keep].filter((word) => word !== NO_COMMAND && !kept.has(word));
        if (missing.length > 0) throw new Error(`only-these-commands: no entry of src/cli/registry.ts loads ${missing.join(', ')} on its line`);
        return { contents, loader: 'ts' };
      });
    },
  };
}

/**
 * What a command's own bundle (`words`: the command words it runs) leaves out: the modules only
 * lines the launcher sends elsewhere reach (bin/run.cjs route). The fast answers' parts and a Tab's
 * completion (their command words never route to a command's bundle), the completion scripts'
 * library but where the completion command is, the manual's generator (scripts/docs.mjs asks the whole program),
 * log-update (a terminal --watch line runs in the whole program), the loop over profiles
 * (--all-profiles and --profiles lines too), and the in-process sandbox (both launchers send
 * --demo lines to the whole program). A module left out is one that throws if it is ever loaded, naming itself: a route missed shows
 * at once in a test, never as a wrong figure. Measured: balance's bundle a quarter smaller to
 * read and deserialise (see the commit).
 */
export function leanCommandBundle(words = []) {
  const leftOut = [
    [/^log-update$/, () => true],
    // The completion scripts' library, but in the bundle of the command that prints them.
    [/^@bomb\.sh\/tab$/, () => !words.includes('completion')],
    [/^(\.\.\/(statusline\/fast|statusline\/fast-guard|completion\/complete|completion\/models|manual\/reference|manual\/topics)|\.\/(manual|completion-spec))\.js$/, (importer) => /src[\\/]cli[\\/](fast|main)\.ts$/.test(importer)],
    [/^\.\.\/fleet\.js$/, (importer) => /src[\\/]cli[\\/]program\.ts$/.test(importer)],
    [/(^|[\\/])sandbox[\\/]server\.js$/, () => true],
  ];
  return {
    name: 'lean-command-bundle',
    setup(build) {
      build.onResolve({ filter: /./ }, (args) => (leftOut.some(([path, from]) => path.test(args.path) && from(args.importer)) ? { path: args.path, namespace: 'left-out' } : undefined));
      build.onLoad({ filter: /.*/, namespace: 'left-out' }, (args) => ({ contents: `throw new Error(${JSON.stringify(`${args.path} is not in this command's bundle`)});`, loader: 'js' }));
    },
  };
}

/**
 * A bundle's text is ASCII only. esbuild escapes what is not ASCII in strings, not in regular
 * expressions: one such character makes V8 hold the whole bundle as two-byte text, slower to read
 * and to compile lazily; and the launchers read the bundles as Latin-1 (bin/load-bundle.cjs,
 * src/sea/entry.cjs), which would misread it.
 */
export function asciiOnly(file) {
  const text = readFileSync(file, 'latin1');
  const nonAscii = /[^\x00-\x7f]/.exec(text);
  if (nonAscii) throw new Error(`${file} has a character outside ASCII near "${text.slice(Math.max(0, nonAscii.index - 40), nonAscii.index + 10)}": write it as \\u escape in the source`);
}

/**
 * Writes a bundle the launchers compile (bin/load-bundle.cjs, src/sea/entry.cjs) with their
 * CommonJS wrapper already around it (bin/run.cjs WRAPPER): compiled as read, never copied into a
 * wrapper at each start. The wrapper's head is a line of its own and the source map (where there
 * is one) moves a line down with the code, so every position it maps stays exact. Checked ASCII
 * only first.
 */
export function wrapBundle(file) {
  asciiOnly(file);
  const { WRAPPER } = createRequire(import.meta.url)('../bin/run.cjs');
  const text = readFileSync(file, 'latin1');
  if (text.startsWith(WRAPPER[0])) throw new Error(`${file} is wrapped already`);
  writeFileSync(file, `${WRAPPER[0]}\n${text}${WRAPPER[1]}`, 'latin1');
  if (existsSync(`${file}.map`)) {
    const map = JSON.parse(readFileSync(`${file}.map`, 'utf8'));
    writeFileSync(`${file}.map`, JSON.stringify({ ...map, mappings: `;${map.mappings}` }));
  }
}

/**
 * `--version`, a cached statusline, the guard and completion answered without the full program
 * (src/cli/fast.ts): fast.cjs is a few kB, and each answer's part (fast-statusline.cjs,
 * fast-guard.cjs, fast-complete.cjs) is a bundle of its own, loaded by the launcher from its code
 * cache (globalThis.__tallyLoadPart: bin/load-bundle.cjs, src/sea/entry.cjs) only for the answer it
 * gives. Both builds make them alike.
 */
export const FAST_PARTS = [
  ['src/statusline/fast.ts', 'fast-statusline'],
  ['src/statusline/fast-guard.ts', 'fast-guard'],
  ['src/completion/complete.ts', 'fast-complete'],
];
/** Each part by the specifier src/cli/fast.ts imports it with (`../statusline/fast.js`). */
const PART_OF_IMPORT = new Map(FAST_PARTS.map(([entry, part]) => [entry.replace(/^src\//, '../').replace(/\.ts$/, '.js'), part]));
export const fastParts = {
  name: 'fast-parts',
  setup(build) {
    build.onResolve({ filter: /^\.\.\// }, (args) =>
      /src[\\/]cli[\\/]fast\.ts$/.test(args.importer) && PART_OF_IMPORT.has(args.path) ? { path: PART_OF_IMPORT.get(args.path), namespace: 'fast-part' } : undefined,
    );
    // Written in the launcher's wrapper, which require() would not run (the run then falls back to the whole program).
    build.onLoad({ filter: /.*/, namespace: 'fast-part' }, (args) => ({
      contents: `if (typeof globalThis.__tallyLoadPart !== 'function') throw new Error('fast.cjs loads its parts through tally\\'s launcher (bin/tally.js, or the single executable)');\nmodule.exports = globalThis.__tallyLoadPart(${JSON.stringify(`${args.path}.cjs`)});`,
      loader: 'js',
    }));
  },
};
