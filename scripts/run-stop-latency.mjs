#!/usr/bin/env node
// How long after the spend crosses --max-spend `tally run` stops its command, against a local
// sandbox: RUNS times (default 20), a command that calls the sandbox's generation stand-in every
// EVERY ms (about ¥10.50 a call) and records when each call's answer came and when SIGTERM
// reached it. The latency is SIGTERM's moment minus the moment the call that took the spend past
// the limit was answered. Prints each run and the median and worst, for --poll 1 and the default 5.
//
//   node scripts/run-stop-latency.mjs [RUNS] [EVERY_MS]
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const RUNS = Number(process.argv[2] ?? 20);
const EVERY = Number(process.argv[3] ?? 500);
const BIN = fileURLToPath(new URL('../bin/tally.js', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'tally-stop-'));
const env = { ...process.env };
delete env.NODE_EXTRA_CA_CERTS;

const SPENDER = `
import http from 'node:http';
import { appendFileSync } from 'node:fs';
const [url, key, every, out] = process.argv.slice(2);
process.on('SIGTERM', () => { appendFileSync(out, 'term ' + Date.now() + '\\n'); process.exit(143); });
for (;;) {
  await new Promise((resolve) => {
    const request = http.request(url + '/v1/chat/completions', { method: 'POST', headers: { authorization: 'Bearer ' + key, 'content-type': 'application/json' } }, (response) => { response.resume(); response.on('end', resolve); });
    request.on('error', resolve);
    request.end(JSON.stringify({ model: 'claude-opus-4.1', messages: [{ role: 'user', content: 'hi' }], max_tokens: 20000 }));
  });
  appendFileSync(out, 'call ' + Date.now() + '\\n');
  await new Promise((resolve) => setTimeout(resolve, Number(every)));
}
`;
const spender = join(work, 'spender.mjs');
writeFileSync(spender, SPENDER);

function startSandbox() {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'sandbox', '--port', '0', '--account-limit', '1000000'], { env, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const url = /export TALLY_BASE_URL=(\S+)/.exec(out)?.[1];
      const key = /export TALLY_API_KEY=(\S+)/.exec(out)?.[1];
      if (url && key) resolve({ child, url, key });
    });
    child.on('exit', () => reject(new Error(`the sandbox ended: ${out}`)));
  });
}

function once(poll, index) {
  return new Promise((resolve) => {
    const out = join(work, `run-${poll}-${index}.log`);
    writeFileSync(out, '');
    // The limit falls between the third and fourth call: the fourth crosses it.
    const child = spawn(process.execPath, [BIN, 'run', '--max-spend', '35', '--poll', String(poll), '--grace', '5', '--', process.execPath, spender, sandbox.url, sandbox.key, String(EVERY), out], { env: { ...env, TALLY_BASE_URL: sandbox.url, TALLY_API_KEY: sandbox.key, TALLY_CONFIG_DIR: join(work, 'state') }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => {
      const lines = readFileSync(out, 'utf8').trim().split('\n');
      const calls = lines.filter((l) => l.startsWith('call ')).map((l) => Number(l.slice(5)));
      const term = Number(lines.find((l) => l.startsWith('term '))?.slice(5));
      if (code !== 5 || calls.length < 4 || !Number.isFinite(term)) {
        console.error(`run ${index}: exit ${code}, ${calls.length} calls\n${stderr}`);
        resolve(undefined);
        return;
      }
      resolve(term - calls[3]);
    });
  });
}

const sandbox = await startSandbox();
try {
  for (const poll of [1, 5]) {
    const latencies = [];
    for (let i = 0; i < RUNS; i++) {
      const ms = await once(poll, i);
      if (ms !== undefined) latencies.push(ms);
    }
    latencies.sort((a, b) => a - b);
    const median = latencies.length % 2 ? latencies[(latencies.length - 1) / 2] : (latencies[latencies.length / 2 - 1] + latencies[latencies.length / 2]) / 2;
    console.log(`--poll ${poll}: ${latencies.length} of ${RUNS} runs stopped; from the crossing call's answer to SIGTERM: median ${Math.round(median)} ms, best ${latencies[0]} ms, worst ${latencies.at(-1)} ms`);
    console.log(`  each: ${latencies.join(' ')}`);
  }
} finally {
  sandbox.child.kill();
  rmSync(work, { recursive: true, force: true });
}
