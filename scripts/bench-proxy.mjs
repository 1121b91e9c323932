// npm run bench with BENCH_PROXY=1 (or BENCH_ONLY=proxy): tally proxy measured against the same
// calls made directly, in one run, on loopback. The sandbox and the proxy run as processes of
// their own; the calls are made from this one with keep-alive connections, direct and through the
// proxy interleaved so machine noise hits both alike. Targets (issue 65):
//   added latency of a small non-streamed answer: p50 <= 1.5 ms, p99 <= 10 ms;
//   a stream's first byte <= 5 ms later than direct (median);
//   200 concurrent streams all served;
//   the proxy's resident memory grows <= 20 MB over 2,000 calls;
//   with the gateway's log 30 s late and 50 calls a second, the spend past --max-spend (the
//   gateway's own counter) is at most one call's worst case.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { bin, children, folder, median, startSandbox } from './bench-support.mjs';

const report = ['tally proxy against the same calls made directly (loopback; the sandbox and the proxy in processes of their own):', ''];
let failed = 0;
const line = (name, value, target, ok) => {
  if (!ok) failed++;
  report.push(`${name.padEnd(58)}${value.padStart(14)}${target.padStart(12)}  ${ok ? 'ok' : 'OVER'}`);
};

function startProxy(sandbox, args) {
  const state = folder('proxy');
  const tokenFile = join(state, 'token');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, 'proxy', '--token-file', tokenFile, ...args], { env: { ...process.env, TALLY_CONFIG_DIR: state, TALLY_BASE_URL: sandbox.base_url, TALLY_API_KEY: sandbox.api_key }, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const url = /TALLY_PROXY_URL=(\S+)\nTALLY_PROXY_TOKEN_FILE=/.exec(out)?.[1];
      if (url) resolve({ child, url, token: readFileSync(tokenFile, 'utf8').trim() });
    });
    child.on('error', reject);
    children.push(child);
  });
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
/** One call: ms to its first byte and to its end, and its status. */
function request(base, key, path, body) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const req = http.request(new URL(path, base), { method: 'POST', agent, headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` } }, (res) => {
      let first;
      res.on('data', () => (first ??= process.hrtime.bigint()));
      res.on('end', () => resolve({ status: res.statusCode, first: Number((first ?? process.hrtime.bigint()) - started) / 1e6, total: Number(process.hrtime.bigint() - started) / 1e6 }));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}
const percentile = (values, p) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((values.length * p) / 100))];
const rss = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;
async function used(sandbox) {
  const answer = await fetch(`${sandbox.base_url}/v1/open/balance`, { headers: { authorization: `Bearer ${sandbox.api_key}` } });
  return (await answer.json()).api_key.daily_cost_used;
}

const small = { model: 'deepseek-chat', messages: [{ role: 'user', content: 'hi' }], max_tokens: 8 };
const streamed = { ...small, stream: true };
const calls = Number(process.env.BENCH_PROXY_CALLS ?? 2000);

// Latency and memory.
{
  const sandbox = await startSandbox();
  const proxy = await startProxy(sandbox, ['--max-spend', '100000000']);
  const direct = (body) => request(sandbox.base_url, sandbox.api_key, '/v1/chat/completions', body);
  const through = (body) => request(proxy.url, proxy.token, '/v1/chat/completions', body);
  for (let i = 0; i < 200; i++) await Promise.all([direct(small), through(small)]); // warm both
  // Resident memory sampled every 100 calls: flat is the last samples against the first (the
  // garbage of one log poll comes and goes; a leak stays).
  const memory = [];
  const added = [];
  const directMs = [];
  for (let i = 0; i < calls; i++) {
    // Alternate which goes first, so neither always meets a warmer machine.
    const [a, b] = i % 2 ? [await direct(small), await through(small)] : [await through(small), await direct(small)].reverse();
    if (a.status !== 200 || b.status !== 200) throw new Error(`a call failed: ${a.status} ${b.status}`);
    directMs.push(a.total);
    if (i % 100 === 0) memory.push(rss(proxy.child.pid));
    added.push(b.total - a.total);
  }
  memory.push(rss(proxy.child.pid));
  const before = median(memory.slice(0, 5));
  const after = median(memory.slice(-5));
  report.push(`${calls} small non-streamed calls each way; direct p50 ${percentile(directMs, 50).toFixed(2)} ms`);
  line('added latency, p50', `${percentile(added, 50).toFixed(2)} ms`, '<= 1.5 ms', percentile(added, 50) <= 1.5);
  line('added latency, p99', `${percentile(added, 99).toFixed(2)} ms`, '<= 10 ms', percentile(added, 99) <= 10);
  line(`proxy resident memory over ${calls} calls (${before.toFixed(1)} -> ${after.toFixed(1)} MB, peak ${Math.max(...memory).toFixed(1)})`, `${(after - before).toFixed(1)} MB`, '<= 20 MB', after - before <= 20);
  // A stream's first byte.
  const firstAdded = [];
  for (let i = 0; i < 60; i++) {
    const a = await direct(streamed);
    const b = await through(streamed);
    firstAdded.push(b.first - a.first);
  }
  line("a stream's first byte, later than direct (median of 60)", `${median(firstAdded).toFixed(2)} ms`, '<= 5 ms', median(firstAdded) <= 5);
  const slowest = (answers) => Math.max(...answers.map((a) => a.total));
  const directMany = await Promise.all(Array.from({ length: 200 }, () => direct(streamed)));
  const many = await Promise.all(Array.from({ length: 200 }, () => through(streamed)));
  const served = many.filter((a) => a.status === 200).length;
  line('200 concurrent streams through the proxy, served', `${served}`, '200', served === 200);
  // None queued behind another: the last ends about when the last direct one does.
  const ratio = slowest(many) / slowest(directMany);
  line(`200 concurrent streams, the slowest (direct ${slowest(directMany).toFixed(0)} ms)`, `${slowest(many).toFixed(0)} ms`, `<= 2x`, ratio <= 2);
  proxy.child.kill('SIGTERM');
}

// The overshoot with a log 30 s late, at 50 calls a second.
{
  const sandbox = await startSandbox(['--log-lag', '30']);
  const limit = '0.50';
  const proxy = await startProxy(sandbox, ['--max-spend', limit]);
  const body = { model: 'deepseek-chat', messages: [{ role: 'user', content: 'count' }], max_tokens: 2000 };
  // The worst case the proxy holds: the body's bytes in, max_tokens out, at deepseek-chat's prices (per 1,000 tokens).
  const catalog = await (await fetch(`${sandbox.base_url}/api/pricing`)).json();
  const prices = catalog.data.find((m) => m.model_name === 'deepseek-chat').service_pricing;
  const before = await used(sandbox);
  const statuses = [];
  const started = Date.now();
  const pending = [];
  for (let i = 0; i < 250; i++) {
    // 50 a second, each sent without waiting for the one before.
    const due = started + i * 20;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - Date.now())));
    pending.push(request(proxy.url, proxy.token, '/v1/chat/completions', body).then((a) => statuses.push(a.status)));
  }
  await Promise.all(pending);
  const after = await used(sandbox);
  const { Decimal } = await import('decimal.js');
  const spent = new Decimal(after).minus(before);
  const past = new Decimal(after).minus(before).minus(limit);
  const worst = new Decimal(JSON.stringify(body).length).mul(prices.input_unit_price).plus(new Decimal(2000).mul(prices.output_unit_price)).div(1000);
  report.push('', `250 calls at 50 a second with the log 30 s late, --max-spend ¥${limit}: ${statuses.filter((s) => s === 200).length} served, ${statuses.filter((s) => s === 402).length} refused (402); the gateway counted ¥${spent.toFixed()}`);
  line("spend past the limit (the gateway's counter; negative: within it)", `¥${past.toFixed(8)}`, `<= ¥${worst.toDecimalPlaces(8).toFixed()}`, past.lte(worst));
  proxy.child.kill('SIGTERM');
}

agent.destroy();
for (const child of children) child.kill('SIGTERM');
console.log(report.join('\n'));
process.exitCode = failed ? 1 : 0;
