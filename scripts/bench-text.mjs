// BENCH_TEXT=1 npm run bench: every text path (masking, escaping, wrapping, widths: see
// test/support/text-paths.ts) fed words of 64 KiB and of 1 MiB in the shapes that make a careless
// pattern backtrack. The larger must cost about 16 times the smaller; a quadratic path costs 256
// times. The least of five runs each; a floor of 5 ms keeps a busy machine's noise out. Exit 1
// when a path grows more than 64 times.
import { build } from 'esbuild';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { folder } from './bench-support.mjs';

const out = join(folder('text'), 'text-paths.mjs');
await build({ entryPoints: [fileURLToPath(new URL('../test/support/text-paths.ts', import.meta.url))], bundle: true, platform: 'node', format: 'esm', outfile: out, logLevel: 'error' });
const { PATHS, SHAPES, SMALL, LARGE, fitLines, prepareWidths } = await import(pathToFileURL(out).href);

async function least(work, text) {
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < 5; i++) {
    const started = performance.now();
    await work(text);
    best = Math.min(best, performance.now() - started);
  }
  return best;
}

const paths = { ...PATHS, 'wrapping a table line': (t) => fitLines(t, 80) };
let over = 0;
console.log(`${'path'.padEnd(26)}${'shape'.padEnd(26)}${'64 KiB ms'.padStart(10)}${'1 MiB ms'.padStart(10)}${'growth'.padStart(8)}  verdict`);
for (const [pathName, path] of Object.entries(paths)) {
  for (const [shape, make] of Object.entries(SHAPES)) {
    await prepareWidths([make(16)]);
    const small = await least(path, make(SMALL));
    const large = await least(path, make(LARGE));
    const growth = large / Math.max(small, 5);
    const ok = growth < 64;
    if (!ok) over++;
    console.log(`${pathName.padEnd(26)}${shape.padEnd(26)}${small.toFixed(1).padStart(10)}${large.toFixed(1).padStart(10)}${growth.toFixed(1).padStart(8)}  ${ok ? 'ok' : 'OVER'}`);
  }
}
process.exitCode = over ? 1 : 0;
