// npm run bench: median wall time (and peak memory) of tally commands against `node -e 0`,
// measured side by side in one run (rounds interleave the cases, so machine noise hits all of
// them alike). BENCH_ONLY=usage measures only the cases whose name contains it;
// BENCH_ROUNDS=N sets the rounds (default 21).
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bin, children, folder, median, startSandbox } from './bench-support.mjs';

// BENCH_TEXT=1: how each text path's cost grows with its input (scripts/bench-text.mjs).
if (process.env.BENCH_TEXT === '1') {
  await import('./bench-text.mjs');
  process.exit(process.exitCode ?? 0);
}

// BENCH_PROXY=1 (or BENCH_ONLY=proxy): tally proxy's added latency, streams, memory and overshoot (scripts/bench-proxy.mjs).
if (process.env.BENCH_PROXY === '1' || process.env.BENCH_ONLY === 'proxy') {
  await import('./bench-proxy.mjs');
  process.exit(process.exitCode ?? 0);
}

// BENCH_NETWORK=1: round trips on a link with a round-trip time instead (scripts/bench-network.mjs).
if (process.env.BENCH_NETWORK === '1') {
  await import('./bench-network.mjs');
  process.exit(process.exitCode ?? 0);
}

const reference = fileURLToPath(new URL('./logs-reference.mjs', import.meta.url));
const catalogFloor = fileURLToPath(new URL('./catalog-floor.cjs', import.meta.url));
const balanceReference = fileURLToPath(new URL('./balance-reference.cjs', import.meta.url));
const rounds = Number(process.env.BENCH_ROUNDS ?? 21);
const time = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;
// CPU time to the microsecond (GNU time's is to 10 ms, a step of 6% of a 150 ms run): the
// children's rusage as Python's resource module reads it, where python3 is installed.
const PYTHON_RUSAGE = "import resource,subprocess,sys\nr=subprocess.run(sys.argv[1:])\nu=resource.getrusage(resource.RUSAGE_CHILDREN)\nsys.stderr.write('%.6f %.6f %d\\n' % (u.ru_utime, u.ru_stime, u.ru_maxrss))\nsys.exit(r.returncode)";
const python = ['/usr/bin/python3', '/usr/local/bin/python3'].find((p) => existsSync(p));

/** One run's CPU milliseconds (user + system, to the microsecond where python3 can tell) and peak memory (MB). */
function cpuOnce(args, env, program = process.execPath) {
  if (!python) {
    const { cpu, rss } = runOnce(args, env, program);
    return { cpu, rss };
  }
  const result = spawnSync(python, ['-c', PYTHON_RUSAGE, program, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  const stderr = result.stderr.toString();
  if (result.status !== 0) throw new Error(`${args.join(' ')} exited ${result.status}: ${stderr}`);
  const [user, system, peak] = stderr.trim().split('\n').at(-1).split(' ').map(Number);
  return { cpu: (user + system) * 1000, rss: peak / 1024 };
}

/** One run (of this Node, or another program): milliseconds, and CPU milliseconds (user + system) and peak resident memory in MB when /usr/bin/time can tell. */
function runOnce(args, env, program = process.execPath, input = undefined) {
  const started = process.hrtime.bigint();
  // Results go to /dev/null: what is measured is tally's work, not a pipe reader's.
  const command = time ? [time, ['-f', '%U %S %M', program, ...args]] : [program, args];
  const result = spawnSync(command[0], command[1], { env: { ...process.env, ...env }, stdio: [input === undefined ? 'ignore' : 'pipe', 'ignore', 'pipe'], maxBuffer: 64 * 1024 * 1024, ...(input === undefined ? {} : { input }) });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  const stderr = result.stderr.toString();
  if (result.status !== 0) throw new Error(`${args.join(' ')} exited ${result.status}: ${stderr}`);
  const [user, system, peak] = time ? stderr.trim().split('\n').at(-1).split(' ').map(Number) : [Number.NaN, Number.NaN, Number.NaN];
  return { ms, rss: peak / 1024, cpu: (user + system) * 1000 };
}


// NODE_EXTRA_CA_CERTS makes every Node process parse that bundle of certificates before it runs
// any code (on the machine this was written on: 50-90 ms, more than the rest of `node -e 0`).
// Ratios against that slower start flatter every case, so the run also times a bare start
// without it and says so; BENCH_WITHOUT_EXTRA_CERTS=1 measures every case without it, as on a
// machine that does not set it.
if (process.env.BENCH_WITHOUT_EXTRA_CERTS === '1') delete process.env.NODE_EXTRA_CA_CERTS;
const extraCerts = process.env.NODE_EXTRA_CA_CERTS;

const only = process.env.BENCH_ONLY;
const wanted = (name) => !only || name.startsWith('node -e 0') || name.includes(only);

const gateway = await startSandbox();
const base = { TALLY_CONFIG_DIR: folder('state'), TALLY_BASE_URL: gateway.base_url, TALLY_API_KEY: gateway.api_key };
// Two targets per case, as ratios to `node -e 0`: `target` against a start slowed by
// NODE_EXTRA_CA_CERTS (where they were first set), `bareTarget` against a bare start, as users
// have it: the figures measured then (issue 23: --version 1.03x, balance 2.03x, status 2.41x,
// the 92-day hourly table 3.56x; the rest from the first run without the certificates) plus 10%,
// the most any case may slow down.
const cases = [
  { name: 'node -e 0', args: ['-e', '0'], env: {} },
  ...(extraCerts ? [{ name: 'node -e 0 without NODE_EXTRA_CA_CERTS', args: ['-e', '0'], env: { NODE_EXTRA_CA_CERTS: '' } }] : []),
  { name: 'tally --version', args: [bin, '--version'], env: {}, target: 1.1, bareTarget: 1.13 },
  { name: 'tally --help', args: [bin, '--help'], env: {} },
  { name: 'tally balance --json', args: [bin, 'balance', '--json'], env: base, target: 1.3, bareTarget: 2.23 },
  // The same request with nothing of tally's: balance --json is held within 1.30x of it.
  { name: 'balance (bare node:http)', args: [balanceReference, gateway.base_url, gateway.api_key], env: {} },
];

// A stored profile, as after `tally login`: the common interactive case.
const stored = folder('stored');
spawnSync(process.execPath, [bin, 'login', '--base-url', gateway.base_url, '--with-token', '--no-verify'], { env: { ...process.env, TALLY_CONFIG_DIR: stored }, input: gateway.api_key });
cases.push({ name: 'tally balance --json (stored)', args: [bin, 'balance', '--json'], env: { TALLY_CONFIG_DIR: stored } });

// 92 days of hours: one request, 2,208 buckets, for every way the sandbox names them and on a +08:00 grid.
if (wanted('usage 92d')) {
  for (const [label, args] of [['compact', []], ['detailed', ['--naming', 'detailed']], ['iso', ['--naming', 'iso']], ['+08:00 grid', ['--utc-offset', '+08:00']]]) {
    const sandbox = label === 'compact' ? gateway : await startSandbox(args);
    const env = { TALLY_CONFIG_DIR: folder('usage'), TALLY_BASE_URL: sandbox.base_url, TALLY_API_KEY: sandbox.api_key };
    cases.push({ name: `usage 92d hourly, ${label}`, args: [bin, 'usage', '--bucket', 'hour', '--since', '92d'], env, target: 1.7, bareTarget: 3.92 });
    cases.push({ name: `usage 92d hourly --json, ${label}`, args: [bin, 'usage', '--bucket', 'hour', '--since', '92d', '--json'], env, target: 1.7, bareTarget: 3.1 });
  }
}
cases.push({ name: 'usage --bucket month --since 365d', args: [bin, 'usage', '--bucket', 'month', '--since', '365d'], env: base, target: 1.8, bareTarget: 2.7 });
cases.push({ name: 'tally status', args: [bin, 'status'], env: base, target: 1.6, bareTarget: 2.65 });
spawnSync(process.execPath, [bin, 'statusline'], { env: { ...process.env, ...base } });
cases.push({ name: 'tally statusline (cached)', args: [bin, 'statusline', '--max-age', '100000000'], env: base, target: 1.15, bareTarget: 1.3 });
cases.push({ name: 'tally complete -- usage --b', args: [bin, 'complete', '--', 'usage', '--b'], env: base });
// The agent's hook before every tool call, answered from its cache (issue 66: 1.25x a bare start); node -e 0 reads the same event.
const hookEvent = JSON.stringify({ session_id: 'bench', transcript_path: '/nonexistent.jsonl', cwd: '/tmp', hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'ls' } });
runOnce([bin, 'guard', '--max-daily-used', '100%', '--max-age', '100000000'], base, process.execPath, hookEvent);
cases.push({ name: 'tally guard (cached, a PreToolUse event)', args: [bin, 'guard', '--max-daily-used', '100%', '--max-age', '100000000'], env: base, input: hookEvent, target: 1.15, bareTarget: 1.25 });

if (wanted('pricing')) {
  const big = await startSandbox(['--catalog-size', '5000']);
  const catalog = { TALLY_CONFIG_DIR: folder('catalog'), TALLY_BASE_URL: big.base_url };
  runOnce([bin, 'pricing', '--refresh', '--json'], catalog); // fills the catalog cache
  const churning = await startSandbox(['--catalog-size', '5000', '--catalog-churn']);
  const churn = { TALLY_CONFIG_DIR: folder('churn'), TALLY_BASE_URL: churning.base_url };
  cases.push(
    { name: 'pricing 5000, cached', args: [bin, 'pricing'], env: catalog, target: 2.0, bareTarget: 3.5 },
    { name: 'pricing 5000, cached, filtered', args: [bin, 'pricing', '--vendor', 'OpenAI', '--sort', 'input'], env: catalog, target: 2.0, bareTarget: 3.05 },
    { name: "pricing 5000, cached, 'gpt-5*'", args: [bin, 'pricing', '--model', 'gpt-5*'], env: catalog, target: 2.0, bareTarget: 3.05 },
    { name: 'pricing 5000, fetched again', args: [bin, 'pricing', '--refresh', '--model', 'gpt-5*'], env: catalog, target: 2.0, bareTarget: 3.8 },
    { name: 'pricing 5000, catalog changed', args: [bin, 'pricing', '--refresh', '--model', 'gpt-5*'], env: churn, target: 2.0 },
    // The same fetch with nothing of tally's: what the target leaves room for above it.
    { name: 'pricing 5000, changed (bare node:http)', args: [catalogFloor, churning.base_url, join(folder('churn-floor'), 'catalog.json')], env: {} },
  );
}

// 200,000 log entries (and 20,000, for memory) against a bare node:http client doing the same.
const logCases = [];
if (wanted('logs')) {
  for (const size of [20_000, 200_000]) {
    const logs = await startSandbox(['--log-size', String(size)]);
    const env = { TALLY_CONFIG_DIR: folder('logs'), TALLY_BASE_URL: logs.base_url, TALLY_API_KEY: logs.api_key };
    const end = Math.floor(Date.now() / 1000) + 1;
    const start = end - 7 * 86400;
    const name = `logs --all --ndjson, ${size.toLocaleString('en-US')}`;
    cases.push({ name, args: [bin, 'logs', '--all', '--ndjson', '--since', String(start), '--until', String(end), '--param', 'limit=1000'], env });
    cases.push({ name: `${name} (bare node:http)`, args: [reference, logs.base_url, logs.api_key, String(start), String(end), '1000'], env: {} });
    logCases.push({ size, name });
  }
}

const selected = cases.filter((c) => wanted(c.name));
for (const c of selected) runOnce(c.args, c.env, process.execPath, c.input); // warm the file cache
const samples = new Map(selected.map((c) => [c.name, { ms: [], rss: [] }]));
for (let round = 0; round < rounds; round++) {
  for (const c of selected) {
    const { ms, rss } = runOnce(c.args, c.env, process.execPath, c.input);
    samples.get(c.name).ms.push(ms);
    samples.get(c.name).rss.push(rss);
  }
}

const baseline = median(samples.get('node -e 0').ms);
/**
 * One case against another: the median of their ratios round by round. A round runs every case
 * once, one after another, so a moment of load on this shared machine slows both sides of a pair;
 * a ratio of two medians taken from different rounds lets it land on one side only.
 */
const pairedRatio = (name, against) => {
  const [a, b] = [samples.get(name).ms, samples.get(against).ms];
  return median(a.map((ms, i) => ms / b[i]));
};
const report = [`median of ${rounds} runs each, interleaved; baseline node -e 0 = ${baseline.toFixed(1)} ms; ratio: the median of the ratios round by round`];
if (extraCerts) {
  const bare = median(samples.get('node -e 0 without NODE_EXTRA_CA_CERTS').ms);
  report.push(
    `NODE_EXTRA_CA_CERTS is set (${extraCerts}): every Node start here spends about ${(baseline - bare).toFixed(0)} ms on it (node -e 0 takes ${bare.toFixed(1)} ms without it),`,
    'so these ratios are smaller than on a machine without it; BENCH_WITHOUT_EXTRA_CERTS=1 measures every case without it.',
  );
}
report.push('');
report.push(`${'case'.padEnd(44)}${'median ms'.padStart(10)}${'ratio'.padStart(8)}${'target'.padStart(8)}${'peak MB'.padStart(9)}  verdict`);
let failed = 0;
const row = (name, ms, ratio, target, rss, verdict) => `${name.padEnd(44)}${(Number.isFinite(ms) ? ms.toFixed(1) : '-').padStart(10)}${ratio.toFixed(2).padStart(8)}${(target ? `${target.toFixed(2)}x` : '').padStart(8)}${(Number.isFinite(rss) ? rss.toFixed(0) : '-').padStart(9)}  ${verdict}`;
for (const c of selected) {
  const s = samples.get(c.name);
  const m = median(s.ms);
  const ratio = pairedRatio(c.name, 'node -e 0');
  const target = extraCerts ? c.target : c.bareTarget;
  const verdict = target === undefined ? '' : ratio <= target ? 'ok' : 'OVER';
  if (verdict === 'OVER') failed++;
  report.push(row(c.name, m, ratio, target, Math.max(...s.rss), verdict));
}
// balance --json against the bare request, and the changed catalog against its bare floor.
for (const [name, bare, target] of [['tally balance --json', 'balance (bare node:http)', 1.3], ['pricing 5000, catalog changed', 'pricing 5000, changed (bare node:http)', 1.8]]) {
  if (!samples.has(name) || !samples.has(bare)) continue;
  const ratio = pairedRatio(name, bare);
  const verdict = ratio <= target ? 'ok' : 'OVER';
  if (verdict === 'OVER') failed++;
  report.push(`${`${name}: vs bare node:http`.padEnd(44)}${''.padStart(10)}${ratio.toFixed(2).padStart(8)}${`${target.toFixed(2)}x`.padStart(8)}${''.padStart(9)}  ${verdict}`);
}
// The logs targets: against the bare client, and memory flat from 20,000 to 200,000 entries.
for (const { name } of logCases) {
  const ratio = pairedRatio(name, `${name} (bare node:http)`);
  const verdict = ratio <= 1.3 ? 'ok' : 'OVER';
  if (verdict === 'OVER') failed++;
  report.push(`${`${name}: vs bare node:http`.padEnd(44)}${''.padStart(10)}${ratio.toFixed(2).padStart(8)}${'1.30x'.padStart(8)}${''.padStart(9)}  ${verdict}`);
}
if (logCases.length === 2 && time) {
  const [small, large] = logCases.map(({ name }) => Math.max(...samples.get(name).rss));
  const verdict = Math.abs(large - small) <= 10 ? 'ok' : 'OVER';
  if (verdict === 'OVER') failed++;
  report.push(`${'logs peak memory, 200,000 minus 20,000'.padEnd(44)}${''.padStart(10)}${`${(large - small).toFixed(1)}MB`.padStart(8)}${'±10MB'.padStart(8)}${''.padStart(9)}  ${verdict}`);
}
// A long export under the gateway's real rate limit (120 requests a minute): 200,000 entries in
// 200 pages of 1,000 need two windows, so the floor is one minute. Measured once (BENCH_RATE=1 or
// BENCH_ONLY=rate): its time against that floor.
if (process.env.BENCH_RATE === '1' || process.env.BENCH_ONLY?.includes('rate')) {
  const limited = await startSandbox(['--log-size', '200000', '--account-limit', '120']);
  const env = { TALLY_CONFIG_DIR: folder('rate'), TALLY_BASE_URL: limited.base_url, TALLY_API_KEY: limited.api_key };
  const end = Math.floor(Date.now() / 1000) + 1;
  const { ms } = runOnce([bin, 'logs', '--all', '--ndjson', '--since', String(end - 7 * 86400), '--until', String(end), '--param', 'limit=1000'], env);
  const floor = 60_000;
  report.push(`${'logs --all 200,000 at 120 requests a minute'.padEnd(44)}${ms.toFixed(0).padStart(10)}${(ms / floor).toFixed(2).padStart(8)}${'vs 60 s floor'.padStart(17)}`);
  limited.child.kill('SIGTERM');
}
// Every supported Node line, and the single executable: the same runs on each, interleaved, as
// ratios to this Node (the pinned lines of scripts/nodes; the binary where npm run build:binary
// made it, or BENCH_BINARY). Always without NODE_EXTRA_CA_CERTS: a constant added to every start
// would flatter every ratio.
// - Node 22 and 24: each command is held to what the same Node does without tally, against the
//   same on this Node: `--version` to `node -e 0`, balance --json and status to the bare node:http
//   client's balance request, each a median of round-by-round ratios of whole starts on that
//   line; that ratio on Node 22 or 24 at most 1.05x the same ratio here. (Held before: tally's own
//   part, a command's time less --version's. But Node 24 itself makes the same request some 17%
//   slower than Node 20 (the bare client's part, 26.3 against 22.5 ms), which that charged to
//   tally: it read 1.04-1.08 with tally's part over the bare request at 0.90; and a difference of
//   two noisy starts is a noisy number.) `own` is still shown.
// - The single executable: against `node bin/tally.js` on the Node it is built from (the
//   contract: it starts no slower), in rounds of its own, the two side by side and in turn first,
//   whole starts, --version too: at most 1.02x, no slower within what paired rounds here tell apart.
// Twice the rounds of the other cases (BENCH_LINE_ROUNDS).
if (wanted('node lines')) {
  const own = process.versions.node.split('.')[0];
  const lines = [{ label: `node ${own} (this one)`, program: process.execPath, prefix: [bin] }];
  const nodes = {};
  for (const major of ['22', '24']) {
    const node = fileURLToPath(new URL(`./nodes/node_modules/node${major}/bin/node`, import.meta.url));
    if (major !== own && existsSync(node)) lines.push((nodes[major] = { label: `node ${major}`, program: node, prefix: [bin], target: 1.05 }));
  }
  const binary = process.env.BENCH_BINARY ?? fileURLToPath(new URL(`../build/sea/tally-${process.platform}-${process.arch}`, import.meta.url));
  let single;
  if (existsSync(binary)) {
    // `tally version`: "tally 0.1.0 (Node 24.21.0, linux-x64)".
    const built = spawnSync(binary, ['version'], { encoding: 'utf8', env: { ...process.env, NODE_EXTRA_CA_CERTS: '' } }).stdout;
    const major = /\(Node v?(\d+)\./.exec(built)?.[1];
    const sameNode = major === own ? lines[0] : nodes[major];
    if (!sameNode) throw new Error(`bench: the single executable is of Node ${major ?? '?'} (${built.trim()}), which scripts/nodes does not pin: npm ci --prefix scripts/nodes`);
    single = { label: 'single executable', program: binary, prefix: [], target: 1.02, against: { ...sameNode, label: `${sameNode.label} beside it` } };
  }
  // What each command is held to on its line, without tally: the bare start, the bare request.
  const WITHOUT = { '--version': 'node -e 0', 'balance --json': 'bare node:http', status: 'bare node:http' };
  const runs = [['balance --json', ['balance', '--json']], ['status', ['status']], ['--version', ['--version']]];
  const bareRuns = [['node -e 0', ['-e', '0']], ['bare node:http', [balanceReference, gateway.base_url, gateway.api_key]]];
  const env = { ...base, TALLY_CONFIG_DIR: folder('lines'), NODE_EXTRA_CA_CERTS: '' };
  const measured = new Map();
  const lineRounds = Number(process.env.BENCH_LINE_ROUNDS ?? 2 * rounds - 1);
  const measure = (line, name, args) => {
    const key = `${line.label}|${name}`;
    if (!measured.has(key)) measured.set(key, []);
    measured.get(key).push(runOnce(args, env, line.program).ms);
  };
  // The Node lines: each command on every line in turn, then the bare runs on each.
  const work = [...runs.map(([name, args]) => lines.map((line) => [line, name, [...line.prefix, ...args]])), ...bareRuns.map(([name, args]) => lines.map((line) => [line, name, args]))].flat();
  for (const [line, , args] of work) runOnce(args, env, line.program); // code caches, file cache
  for (let round = 0; round < lineRounds; round++) for (const [line, name, args] of work) measure(line, name, args);
  // The binary, in rounds of its own: each command beside node bin/tally.js on its Node, which goes
  // first in one round and second in the next. The order matters on this machine: of two starts of
  // Node 24's code one right after the other, the second reads 2-4% slower, either way round
  // (paired, 21 rounds: the binary 1.02x node 24 run just before it, 0.98x run just after it).
  if (single) {
    const pairs = runs.map(([name, args]) => [[single.against, name, [...single.against.prefix, ...args]], [single, name, args]]);
    for (const [line, , args] of pairs.flat()) runOnce(args, env, line.program);
    for (let round = 0; round < lineRounds; round++) for (const pair of pairs) for (const [line, name, args] of round % 2 === 0 ? pair : [...pair].reverse()) measure(line, name, args);
  }
  report.push(
    '',
    `each Node line and the single executable, against node ${own} (${process.version}), ${lineRounds} rounds, without NODE_EXTRA_CA_CERTS;`,
    'ratio: the whole start\'s, round by round; each Node line is held to the same Node without tally (--version to node -e 0, balance and status',
    "to the bare node:http request) against the same here; own: the command's time less --version's, against the same here (shown);",
    'the single executable is held to node bin/tally.js on its own Node run beside it, first and second in turn (whole starts, the three commands pooled)',
  );
  const runsOf = (line, name) => measured.get(`${line.label}|${name}`);
  /** The median of round-by-round ratios of two runs of a line. */
  const ratioOf = (line, name, against, other = line) => median(runsOf(line, name).map((ms, i) => ms / runsOf(other, against)[i]));
  /** A line's own part of a command's start: its time less --version's, round by round, the median. */
  const ownPart = (line, name) => median(runsOf(line, name).map((ms, i) => ms - runsOf(line, '--version')[i]));
  for (const [name] of runs) {
    for (const line of lines) {
      const own = name === '--version' ? '' : `; own ${(ownPart(line, name) / ownPart(lines[0], name)).toFixed(2)}`;
      let verdict = '';
      if (line.target !== undefined) {
        const held = ratioOf(line, name, WITHOUT[name]) / ratioOf(lines[0], name, WITHOUT[name]);
        verdict = `${held <= line.target ? 'ok' : 'OVER'} (vs ${WITHOUT[name]} ${held.toFixed(2)}${own})`;
      }
      if (verdict.startsWith('OVER')) failed++;
      report.push(row(`${name}, ${line.label}`, median(runsOf(line, name)), ratioOf(line, name, name, lines[0]), line.target, Number.NaN, verdict));
    }
  }
  for (const [name] of bareRuns) for (const line of lines) report.push(row(`${name}, ${line.label}`, median(runsOf(line, name)), ratioOf(line, name, name, lines[0]), undefined, Number.NaN, ''));
  if (single) {
    // The same work on the same Node, so whole starts compare directly (--version too); shown per
    // command, held once on every round of the three pooled: what the binary adds or saves is its
    // launcher's, the same for each command.
    for (const [name] of runs) {
      const own = name === '--version' ? '' : ` (own ${(ownPart(single, name) / ownPart(single.against, name)).toFixed(2)})`;
      report.push(row(`${name}, ${single.label}`, median(runsOf(single, name)), ratioOf(single, name, name, single.against), undefined, Number.NaN, `vs ${single.against.label}${own}`));
    }
    const pooled = median(runs.flatMap(([name]) => runsOf(single, name).map((ms, i) => ms / runsOf(single.against, name)[i])));
    const verdict = pooled <= single.target ? 'ok' : 'OVER';
    if (verdict === 'OVER') failed++;
    report.push(row(`${single.label}, the three pooled`, Number.NaN, pooled, single.target, Number.NaN, `${verdict} (vs ${single.against.label})`));
  }
}
// Against an earlier build (BENCH_REFERENCE, default f29dbd6: the commit before packaging, HTTP/2,
// tally run and the guard), built once into build/reference/COMMIT: the same command lines on the
// same sandbox, interleaved, CPU time (user + system) and peak memory, without
// NODE_EXTRA_CA_CERTS. A second copy of the reference runs beside as a control: its ratio to the
// first is what this machine's noise makes of two identical builds. Targets (issue 66): CPU <= 1.00x
// the reference (beyond the control's own distance from 1.00), peak memory <= 1.05x.
if (wanted('reference')) {
  const { referenceBuild } = await import('./bench-reference.mjs');
  const commit = process.env.BENCH_REFERENCE ?? 'f29dbd6';
  const referenceBin = referenceBuild(commit);
  // The three the issue names, a command's own help (from its bundle, as the reference gave it) and
  // a line of the light commands' shared bundle (the reference ran it in its whole program).
  const runs = [['balance --json', ['balance', '--json']], ['status', ['status']], ['usage --since 92d --bucket hour --json', ['usage', '--since', '92d', '--bucket', 'hour', '--json']], ['balance --help', ['balance', '--help']], ['config list', ['config', 'list']]];
  const builds = [['this build', bin, folder('ref-this')], ['reference', referenceBin, folder('ref-a')], ['reference (control)', referenceBin, folder('ref-b')]];
  const measured = new Map();
  for (const [, program, state] of builds) for (const [, args] of runs) cpuOnce([program, ...args], { ...base, TALLY_CONFIG_DIR: state, NODE_EXTRA_CA_CERTS: '' }); // code caches
  for (let round = 0; round < rounds; round++) {
    for (const [name, args] of runs) {
      for (const [label, program, state] of builds) {
        const key = `${label}|${name}`;
        if (!measured.has(key)) measured.set(key, []);
        measured.get(key).push(cpuOnce([program, ...args], { ...base, TALLY_CONFIG_DIR: state, NODE_EXTRA_CA_CERTS: '' }));
      }
    }
  }
  report.push('', `against the build of ${commit} (build/reference/${commit}), paired rounds, without NODE_EXTRA_CA_CERTS: median of the per-round CPU ratios, peak memory ratio`);
  report.push(`${'case'.padEnd(44)}${'cpu ms'.padStart(10)}${'ratio'.padStart(8)}${'control'.padStart(9)}${'target'.padStart(8)}${'peak'.padStart(7)}  verdict`);
  for (const [name] of runs) {
    const [own, ref, control] = builds.map(([label]) => measured.get(`${label}|${name}`));
    const ratio = median(own.map((r, i) => r.cpu / ref[i].cpu));
    const controlRatio = median(control.map((r, i) => r.cpu / ref[i].cpu));
    const peak = median(own.map((r) => r.rss)) / median(ref.map((r) => r.rss));
    const allowed = 1 + Math.abs(controlRatio - 1);
    const verdict = ratio <= allowed && peak <= 1.05 ? 'ok' : 'OVER';
    if (verdict === 'OVER') failed++;
    report.push(`${name.padEnd(44)}${median(own.map((r) => r.cpu)).toFixed(0).padStart(10)}${ratio.toFixed(3).padStart(8)}${controlRatio.toFixed(3).padStart(9)}${`${allowed.toFixed(2)}x`.padStart(8)}${peak.toFixed(3).padStart(7)}  ${verdict}`);
  }
}
for (const child of children) child.kill('SIGTERM'); // or their pipes keep this process alive
console.log(report.join('\n'));
if (process.env.BENCH_REPORT) writeFileSync(process.env.BENCH_REPORT, `${report.join('\n')}\n`);
process.exitCode = failed ? 1 : 0;
