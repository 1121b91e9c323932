// `tally proxy` as the built binary, started for a test: its address and local token once it has
// printed them, what it says on stderr, and the process (to signal or kill).
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { BIN, NODE } from '../helpers.js';

export interface ProxyProcess {
  child: ChildProcess;
  url: string;
  token: string;
  /** What it printed on stdout (TALLY_PROXY_URL=…, TALLY_PROXY_TOKEN_FILE=…). */
  out: string;
  stderr(): string;
}

export async function startProxyProcess(args: string[], env: NodeJS.ProcessEnv, tokenFile: string): Promise<ProxyProcess> {
  const child = spawn(NODE, [BIN, 'proxy', '--token-file', tokenFile, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (stderr += d));
  for (let i = 0; i < 200 && !out.includes('TALLY_PROXY_TOKEN_FILE='); i++) await new Promise((resolve) => setTimeout(resolve, 50));
  const url = /^TALLY_PROXY_URL=(\S+)$/m.exec(out)?.[1];
  if (!url) throw new Error(`tally proxy did not start: ${stderr}`);
  return { child, url, token: readFileSync(tokenFile, 'utf8').trim(), out, stderr: () => stderr };
}
