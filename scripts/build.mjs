// Bundles src/ into dist/ with one chunk per lazily imported module, so that a command
// loads only what it needs (start-up time is part of the product).
import { build } from 'esbuild';
import { readFileSync } from 'node:fs';

const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

await build({
  entryPoints: { main: 'src/main.ts' },
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  minifyWhitespace: true,
  minifySyntax: true,
  sourcemap: 'linked',
  legalComments: 'none',
  define: { __TALLY_VERSION__: JSON.stringify(version) },
  // cli-table3 and its helpers are CommonJS and call require().
  banner: { js: "import { createRequire as __tallyRequire } from 'node:module'; const require = __tallyRequire(import.meta.url);" },
  logLevel: 'warning',
});
