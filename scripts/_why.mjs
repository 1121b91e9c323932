import { build } from 'esbuild';
import { readFileSync } from 'node:fs';
const name = process.argv[2] || 'balance', target = process.argv[3];
const onlyThisCommand = { name: 'o', setup(b) { b.onLoad({ filter: /[\\/]src[\\/]cli[\\/]registry\.ts$/ }, (args) => ({ contents: readFileSync(args.path, 'utf8').replace(/import\('\.\.\/commands\/([\w-]+)\.js'\)/g, (w, f) => (f === name ? w : `Promise.reject(new Error('x'))`)), loader: 'ts' })); } };
const r = await build({ bundle: true, format: 'cjs', platform: 'node', target: 'node20', write: false, metafile: true, define: { __TALLY_VERSION__: '"x"', 'import.meta.url': 'undefined' }, external: ['undici', 'conf', 'jq-wasm', 'selfsigned', '@modelcontextprotocol/server', '@modelcontextprotocol/server/stdio'], entryPoints: ['src/main.ts'], outfile: '/tmp/x.cjs', plugins: [onlyThisCommand], logLevel: 'error' });
const inputs = r.metafile.inputs;
// who imports target (BFS from target upward to main)
const importers = new Map();
for (const [f, v] of Object.entries(inputs)) for (const i of v.imports) { if (!importers.has(i.path)) importers.set(i.path, []); importers.get(i.path).push([f, i.kind]); }
const starts = Object.keys(inputs).filter(f => f.includes(target));
const prev = new Map(); const q = [...starts]; for (const s of starts) prev.set(s, null);
while (q.length) { const f = q.shift(); if (f === 'src/main.ts') break; for (const [imp, kind] of importers.get(f) || []) if (!prev.has(imp)) { prev.set(imp, [f, kind]); q.push(imp); } }
let f = 'src/main.ts'; const chain = []; while (f) { const p = prev.get(f); chain.push(f + (p ? ` -(${p[1]})->` : '')); f = p && p[0]; }
console.log(chain.join('\n'));
