// npm run bench: median wall time of tally commands against `node -e 0`, measured side by
// side in one run (rounds interleave the cases, so machine noise hits all of them alike).
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const bin = fileURLToPath(new URL('../bin/tally.js', import.meta.url));
const rounds = Number(process.env.BENCH_ROUNDS ?? 25);
const stateDir = mkdtempSync(join(tmpdir(), 'tally-bench-'));
const storedDir = mkdtempSync(join(tmpdir(), 'tally-bench-stored-'));
// Sandboxes and folders go away however the run ends (a failing case throws).
const children = [];
process.on('exit', () => {
  for (const child of children) child.kill('SIGTERM');
  rmSync(stateDir, { recursive: true, force: true });
  rmSync(storedDir, { recursive: true, force: true });
});

/** Starts `tally sandbox` in its own process and returns its base URL and demo key. */
function startSandbox(args = []) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, 'sandbox', '--json', ...args], { env: { ...process.env, TALLY_CONFIG_DIR: stateDir }, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      if (out.includes('}')) resolve({ child, ...JSON.parse(out) });
    });
    child.on('error', reject);
    children.push(child);
  });
}

function timeOnce(args, env) {
  const started = process.hrtime.bigint();
  // Results go to /dev/null: what is measured is tally's work, not a pipe reader's.
  const result = spawnSync(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== 0) throw new Error(`${args.join(' ')} exited ${result.status}: ${result.stderr}`);
  return ms;
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

// Many rounds of balance and usage exceed the spec's 120 requests a minute: lift it here.
const sandbox = await startSandbox(['--account-limit', '1000000']);
const gateway = { TALLY_CONFIG_DIR: stateDir, TALLY_BASE_URL: sandbox.base_url, TALLY_API_KEY: sandbox.api_key };
// A stored profile, as after `tally login`: the common interactive case.
spawnSync(process.execPath, [bin, 'login', '--base-url', sandbox.base_url, '--with-token', '--no-verify'], { env: { ...process.env, TALLY_CONFIG_DIR: storedDir }, input: sandbox.api_key });
const bigCatalog = await startSandbox(['--catalog-size', '5000']);
const catalogGateway = { TALLY_CONFIG_DIR: stateDir, TALLY_BASE_URL: bigCatalog.base_url };
timeOnce([bin, 'pricing', '--refresh', '--json'], catalogGateway); // fills the catalog cache
// The same catalog, but a new pricing_version with every request: each fetch is a new catalog.
const churningCatalog = await startSandbox(['--catalog-size', '5000', '--catalog-churn']);
const churningGateway = { TALLY_CONFIG_DIR: stateDir, TALLY_BASE_URL: churningCatalog.base_url };

// Exactly 92 days of hours ending at the end of the current hour: one request, 2,208 buckets.
const hourEnd = Math.ceil(Date.now() / 3_600_000) * 3600;
const window92 = ['--bucket', 'hour', '--since', String(hourEnd - 2208 * 3600), '--until', String(hourEnd)];

const cases = [
  { name: 'node -e 0', args: ['-e', '0'], env: {} },
  { name: 'tally --version', args: [bin, '--version'], env: {}, target: 1.2 },
  { name: 'tally --help', args: [bin, '--help'], env: {} },
  { name: 'tally balance --json', args: [bin, 'balance', '--json'], env: gateway, target: 1.5 },
  { name: 'tally balance --json (stored)', args: [bin, 'balance', '--json'], env: { TALLY_CONFIG_DIR: storedDir } },
  { name: 'tally usage 92d hourly (table)', args: [bin, 'usage', ...window92], env: gateway, target: 1.8 },
  { name: 'tally usage 92d hourly --json', args: [bin, 'usage', '--json', ...window92], env: gateway },
  { name: 'tally pricing, 5000 models, cached', args: [bin, 'pricing'], env: catalogGateway, target: 2.0 },
  { name: 'tally pricing, 5000, filtered', args: [bin, 'pricing', '--vendor', 'OpenAI', '--sort', 'input'], env: catalogGateway, target: 2.0 },
  { name: "tally pricing, 5000, 'gpt-5*'", args: [bin, 'pricing', '--model', 'gpt-5*'], env: catalogGateway, target: 2.0 },
  { name: 'tally pricing, 5000, fetched again', args: [bin, 'pricing', '--refresh', '--model', 'gpt-5*'], env: catalogGateway, target: 2.0 },
  { name: 'tally pricing, 5000, fetched new', args: [bin, 'pricing', '--refresh', '--model', 'gpt-5*'], env: churningGateway, target: 2.0 },
];

// BENCH_ONLY=usage measures only the cases whose name contains it (and the baseline).
const only = process.env.BENCH_ONLY;
if (only) cases.splice(0, cases.length, ...cases.filter((c) => c.name === 'node -e 0' || c.name.includes(only)));
for (const c of cases) timeOnce(c.args, c.env); // warm the file cache
const samples = new Map(cases.map((c) => [c.name, []]));
for (let round = 0; round < rounds; round++) {
  for (const c of cases) samples.get(c.name).push(timeOnce(c.args, c.env));
}
for (const child of children) child.kill('SIGTERM'); // or their pipes keep this process alive

const baseline = median(samples.get('node -e 0'));
console.log(`median of ${rounds} runs each, interleaved; baseline node -e 0 = ${baseline.toFixed(1)} ms\n`);
console.log(`${'case'.padEnd(34)}${'median ms'.padStart(10)}${'ratio'.padStart(8)}${'target'.padStart(8)}  verdict`);
let failed = 0;
for (const c of cases) {
  const m = median(samples.get(c.name));
  const ratio = m / baseline;
  const verdict = c.target === undefined ? '' : ratio <= c.target ? 'ok' : 'OVER';
  if (verdict === 'OVER') failed++;
  console.log(`${c.name.padEnd(34)}${m.toFixed(1).padStart(10)}${ratio.toFixed(2).padStart(8)}${(c.target ? `${c.target.toFixed(1)}x` : '').padStart(8)}  ${verdict}`);
}
process.exitCode = failed ? 1 : 0;
