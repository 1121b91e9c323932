// What both benches share: temporary folders and child processes that go away however the run
// ends (a failing case throws), `tally sandbox` in a process of its own, and the median.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const bin = fileURLToPath(new URL('../bin/tally.js', import.meta.url));
const folders = [];
export const children = [];
process.on('exit', () => {
  for (const child of children) child.kill('SIGTERM');
  for (const dir of folders) rmSync(dir, { recursive: true, force: true });
});

export function folder(name) {
  const dir = mkdtempSync(join(tmpdir(), `tally-bench-${name}-`));
  folders.push(dir);
  return dir;
}

/** Starts `tally sandbox --json` with these flags in its own process; resolves with what it printed. */
export function startSandbox(args = []) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, 'sandbox', '--json', '--account-limit', '1000000', ...args], { env: { ...process.env, TALLY_CONFIG_DIR: folder('sandbox') }, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      if (out.includes('}')) resolve({ child, ...JSON.parse(out) });
    });
    child.on('error', reject);
    children.push(child);
  });
}

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
