// What the package's build (scripts/build.mjs) and the single executable's (scripts/build-binary.mjs)
// bundle alike: esbuild's settings and the plugins both use.
import { readFileSync } from 'node:fs';

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

/** The commands run every day, in CI and by scripts: each has a bundle of its own (bin/routes.cjs picks it by the command word). */
export const EVERYDAY = ['balance', 'usage', 'status', 'forecast', 'check', 'logs', 'models', 'pricing'];

/** The program with every command's loader but `name`'s left out (the launcher sends only that command's lines to its bundle). */
export function onlyThisCommand(name) {
  return {
    name: 'only-this-command',
    setup(build) {
      build.onLoad({ filter: /[\\/]src[\\/]cli[\\/]registry\.ts$/ }, (args) => ({
        contents: readFileSync(args.path, 'utf8').replace(/import\('\.\.\/commands\/([\w-]+)\.js'\)/g, (whole, file) => (file === name ? whole : `Promise.reject(new Error('${file} is not in the bundle of ${name}'))`)),
        loader: 'ts',
      }));
    },
  };
}

/**
 * What a command's own bundle leaves out: the modules only lines the launcher sends elsewhere
 * reach (bin/routes.cjs). The fast answers' parts and completion (their command words never route
 * to a command's bundle), the manual's generator (scripts/docs.mjs asks the whole program),
 * log-update (a terminal --watch line runs in the whole program), the loop over profiles
 * (--all-profiles and --profiles lines too), and, where `sandbox` is false, the in-process sandbox
 * (the package sends --demo lines to the whole program; the single executable keeps it). A
 * module left out is one that throws if it is ever loaded, naming itself: a route missed shows
 * at once in a test, never as a wrong figure. Measured: balance's bundle a quarter smaller to
 * read and deserialise (see the commit).
 */
export function leanCommandBundle({ sandbox }) {
  const leftOut = [
    [/^log-update$|^@bomb\.sh\/tab$/, () => true],
    [/^(\.\.\/(statusline\/fast|statusline\/fast-guard|completion\/complete|completion\/models|manual\/reference|manual\/topics)|\.\/(manual|completion-spec))\.js$/, (importer) => /src[\\/]cli[\\/](fast|main)\.ts$/.test(importer)],
    [/^\.\.\/fleet\.js$/, (importer) => /src[\\/]cli[\\/]program\.ts$/.test(importer)],
    ...(sandbox ? [] : [[/(^|[\\/])sandbox[\\/]server\.js$/, () => true]]),
  ];
  return {
    name: 'lean-command-bundle',
    setup(build) {
      build.onResolve({ filter: /./ }, (args) => (leftOut.some(([path, from]) => path.test(args.path) && from(args.importer)) ? { path: args.path, namespace: 'left-out' } : undefined));
      build.onLoad({ filter: /.*/, namespace: 'left-out' }, (args) => ({ contents: `throw new Error(${JSON.stringify(`${args.path} is not in this command's bundle`)});`, loader: 'js' }));
    },
  };
}
