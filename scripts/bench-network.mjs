// npm run bench with BENCH_NETWORK=1: round trips on a real link. `tally sandbox --tls` sits
// behind scripts/latency-relay.mjs, which adds a round-trip time (BENCH_RTT_MS, default 100) and
// one more before a new connection carries data. Each case's median wall time is given as a
// ratio to one `balance --json` request through the same relay (the reference: a start, a TCP
// and TLS handshake, one request), with the connections it opened. Rounds interleave the cases.
// Each case runs twice a round in a state folder of its own: a first run (nothing known: the
// grid learned, nothing remembered) and the same command again (the grid and settled days known).
import { spawn } from 'node:child_process';
import { startRelay } from './latency-relay.mjs';
import { bin, children, folder, median, startSandbox } from './bench-support.mjs';

const rounds = Number(process.env.BENCH_ROUNDS ?? 7);
const rtt = Number(process.env.BENCH_RTT_MS ?? 100);
// Measured as on a user's machine: no certificate bundle parsed at every start.
delete process.env.NODE_EXTRA_CA_CERTS;
const startTlsSandbox = (args) => startSandbox(['--tls', ...args]);

/** One run, asynchronously (the relay lives in this process and must keep forwarding): ms. */
function runOnce(args, env) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, [bin, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      if (code !== 0) reject(new Error(`tally ${args.join(' ')} exited ${code}: ${stderr}`));
      else resolve(ms);
    });
  });
}


// The same cases over each protocol: HTTP/2 where the front end offers it (ALPN), HTTP/1.1 where it does not (BENCH_PROTOCOL=h2|http1 for one).
let failedAll = 0;
for (const protocol of process.env.BENCH_PROTOCOL === 'h2' ? ['HTTP/2'] : process.env.BENCH_PROTOCOL === 'http1' ? ['HTTP/1.1'] : ['HTTP/2', 'HTTP/1.1']) {
  const h2 = protocol === 'HTTP/2';
  const gateway = await startTlsSandbox(['--log-size', '2000', ...(protocol === 'HTTP/1.1' ? ['--http1-only'] : [])]);
  const url = new URL(gateway.base_url);
  const relay = await startRelay({ host: url.hostname, port: Number(url.port) }, rtt);
  const env = {
    TALLY_BASE_URL: `https://127.0.0.1:${relay.port}`,
    TALLY_API_KEY: gateway.api_key,
    TALLY_CA_FILE: gateway.ca_file,
  };
  const LOG_PAGES = 20;
  const FEW_PAGES = 2;
  const end = Math.floor(Date.now() / 1000) + 1;
  const cases = [
    { name: 'balance --json (one request: the reference)', args: ['balance', '--json'] },
    { name: 'usage --since 365d --json', args: ['usage', '--since', '365d', '--json'], target: h2 ? 1.25 : 1.35 },
    { name: 'models --prices --refresh', args: ['models', '--prices', '--refresh'], target: h2 ? 1.25 : 1.35 },
    { name: 'status', args: ['status'], target: h2 ? 1.25 : 1.35 },
    // The figures of a digest: its period, the one before, the forecast's month and the anomalies' history, from one day series.
    { name: 'report --period week --json', args: ['report', '--period', 'week', '--json'], target: h2 ? 1.25 : 1.5 },
    { name: 'anomalies --json', args: ['anomalies', '--json'], target: h2 ? 1.25 : 2.45 },
    { name: 'export --since 30d', args: ['export', '--since', '30d'], target: h2 ? 1.35 : 2.95 },
    // 2,000 entries over six days, 100 a page: 20 pages that depend on each other; and the same
    // entries in the fewest pages the sandbox serves (1,000 a page): what paging itself costs.
    { name: `logs --all, ${LOG_PAGES} pages`, args: ['logs', '--all', '--ndjson', '--since', String(end - 7 * 86400), '--until', String(end), '--param', `limit=${2000 / LOG_PAGES}`] },
    { name: `logs --all, ${FEW_PAGES} pages`, args: ['logs', '--all', '--ndjson', '--since', String(end - 7 * 86400), '--until', String(end), '--param', `limit=${2000 / FEW_PAGES}`] },
  ];

  // BENCH_ONLY=anomalies measures the reference and the cases whose name contains it.
  const only = process.env.BENCH_ONLY;
  if (only) cases.splice(0, cases.length, ...cases.filter((c, i) => i === 0 || c.name.includes(only)));
  const samples = new Map(cases.map((c) => [c.name, { ms: [], connections: [], again: [] }]));
  for (const c of cases) await runOnce(c.args, { ...env, TALLY_CONFIG_DIR: folder('warm') });
  for (let round = 0; round < rounds; round++) {
    for (const c of cases) {
      // A fresh state folder each case and round: nothing cached, every request made (the grid is learned as on a first run); then the same again.
      const state = folder('run');
      const before = relay.connections();
      const ms = await runOnce(c.args, { ...env, TALLY_CONFIG_DIR: state });
      samples.get(c.name).ms.push(ms);
      samples.get(c.name).connections.push(relay.connections() - before);
      samples.get(c.name).again.push(await runOnce(c.args, { ...env, TALLY_CONFIG_DIR: state }));
    }
  }
  const lateness = relay.lateness();
  await relay.close();

  const reference = median(samples.get(cases[0].name).ms);
  const referenceAgain = median(samples.get(cases[0].name).again);
  const report = [`network mode, ${protocol}: ${rtt} ms round trip (+1 for a new connection) in front of tally sandbox --tls${h2 ? '' : ' --http1-only'}; median of ${rounds} runs each, interleaved`, `the relay's timers let each chunk go ${lateness.toFixed(2)} ms late on average: a round trip delivered in ${(rtt + 2 * lateness).toFixed(1)} ms`, `reference: one balance --json request = ${reference.toFixed(0)} ms (again: ${referenceAgain.toFixed(0)} ms)`, ''];
  report.push(`${'case'.padEnd(46)}${'median ms'.padStart(10)}${'ratio'.padStart(8)}${'again'.padStart(8)}${'target'.padStart(8)}${'conns'.padStart(7)}  verdict (first, again)`);
  let failed = 0;
  for (const c of cases) {
    const s = samples.get(c.name);
    const ms = median(s.ms);
    const ratio = ms / reference;
    // A second run set against a second run of the reference (its protocol known too).
    const again = median(s.again) / referenceAgain;
    const verdict = c.target === undefined ? '' : [ratio, again].map((r) => (r <= c.target ? 'ok' : 'OVER')).join(', ');
    if (verdict.includes('OVER')) failed++;
    report.push(`${c.name.padEnd(46)}${ms.toFixed(0).padStart(10)}${ratio.toFixed(2).padStart(8)}${again.toFixed(2).padStart(8)}${(c.target ? `${c.target.toFixed(2)}x` : '').padStart(8)}${String(median(s.connections)).padStart(7)}  ${verdict}`);
  }
  // logs: the round trips each page costs, as the relay really delivered a round trip (its timers
  // fire a little late, each way): the 20-page run against the same entries in 2 pages (the same
  // start, entries and output: only the paging differs). Beside it, the same against the
  // reference's one request, which also counts what logs costs beyond balance whatever the
  // pages (its code, 2,000 entries read and written).
  const logs = samples.get(`logs --all, ${LOG_PAGES} pages`);
  const few = samples.get(`logs --all, ${FEW_PAGES} pages`);
  const delivered = rtt + 2 * lateness;
  if (logs && few) {
    const target = h2 ? 1.05 : 1.15;
    const perPage = (median(logs.ms) - median(few.ms)) / delivered / (LOG_PAGES - FEW_PAGES);
    const perPageAgain = (median(logs.again) - median(few.again)) / delivered / (LOG_PAGES - FEW_PAGES);
    const logsVerdict = [perPage, perPageAgain].map((p) => (p <= target && median(logs.connections) === 1 ? 'ok' : 'OVER')).join(', ');
    if (logsVerdict.includes('OVER')) failed++;
    report.push(`${'logs --all: round trips a page (20 vs 2 pages)'.padEnd(46)}${''.padStart(10)}${perPage.toFixed(2).padStart(8)}${perPageAgain.toFixed(2).padStart(8)}${target.toFixed(2).padStart(8)}${String(median(logs.connections)).padStart(7)}  ${logsVerdict}`);
    const overall = (median(logs.ms) - reference) / delivered / (LOG_PAGES - 1);
    const overallAgain = (median(logs.again) - referenceAgain) / delivered / (LOG_PAGES - 1);
    report.push(`${'  (against one balance request instead)'.padEnd(46)}${''.padStart(10)}${overall.toFixed(2).padStart(8)}${overallAgain.toFixed(2).padStart(8)}`);
  }
  console.log(report.join('\n'));
  console.log('');
  failedAll += failed;
}
for (const child of children) child.kill('SIGTERM');
process.exitCode = failedAll ? 1 : 0;
