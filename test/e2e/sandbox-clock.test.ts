// The sandbox as a long-running command, and its clock: every answer follows it.
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { clockStartingAt, startSandbox } from '../../src/sandbox/server.js';
import { BIN, NODE, tempDir } from '../helpers.js';

describe('tally sandbox', () => {
  it('dates every answer by its own clock (--now moves the Date header too)', async () => {
    const start = Date.UTC(2026, 0, 15, 8, 0, 0);
    const sandbox = await startSandbox({ now: clockStartingAt(start) });
    try {
      const response = await fetch(`${sandbox.baseUrl}/api/pricing`);
      const date = Date.parse(response.headers.get('date')!);
      expect(Math.abs(date - start)).toBeLessThan(60_000);
      const unauthorised = await fetch(`${sandbox.baseUrl}/v1/open/balance`);
      expect(unauthorised.status).toBe(401);
      expect(Math.abs(Date.parse(unauthorised.headers.get('date')!) - start)).toBeLessThan(60_000);
    } finally {
      await sandbox.close();
    }
  });

  it('runs past --timeout and stops on Ctrl-C as interrupted (130), never as timed out', async () => {
    const dir = tempDir();
    try {
      const child = spawn(NODE, [BIN, '--timeout', '1', 'sandbox'], { env: { PATH: process.env.PATH, TALLY_CONFIG_DIR: dir.path, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
      for (let i = 0; i < 100 && !stdout.includes('Press Ctrl-C'); i++) await new Promise((r) => setTimeout(r, 50));
      // Well past the one-second deadline, the sandbox still answers.
      await new Promise((r) => setTimeout(r, 1500));
      const base = /http:\/\/127\.0\.0\.1:\d+/.exec(stdout)![0];
      expect((await fetch(`${base}/api/pricing`)).status).toBe(200);
      child.kill('SIGINT');
      expect(await closed).toBe(130);
      expect(stderr).toBe('tally: interrupted\n');
    } finally {
      dir.remove();
    }
  });

  it('says a busy port is busy (exit 2), not that something crashed', async () => {
    const sandbox = await startSandbox();
    const dir = tempDir();
    try {
      const port = new URL(sandbox.baseUrl).port;
      const child = spawn(NODE, [BIN, 'sandbox', '--port', port], { env: { PATH: process.env.PATH, TALLY_CONFIG_DIR: dir.path }, stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (d) => (stderr += d));
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      expect(code).toBe(2);
      expect(stderr).toBe(`tally: port ${port} on 127.0.0.1 is already in use; pick another with --port N (--port 0 takes a free one)\n`);
    } finally {
      await sandbox.close();
      dir.remove();
    }
  });
});

describe('output that did not arrive', () => {
  it.each([[['--demo', 'balance']], [['--demo', 'balance', '--json']], [['--demo', 'usage', '--csv']], [['completion', 'bash']]])(
    'is exit 1 with a message when stdout cannot be written (a full disk): %j',
    async (args) => {
      const { openSync, closeSync } = await import('node:fs');
      const full = openSync('/dev/full', 'w');
      const dir = tempDir();
      try {
        const child = spawn(NODE, [BIN, ...args], { env: { PATH: process.env.PATH, TALLY_CONFIG_DIR: dir.path }, stdio: ['ignore', full, 'pipe'] });
        let stderr = '';
        child.stderr!.on('data', (d) => (stderr += d));
        const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
        const message = 'could not write the results to standard output: no space left on the device';
        if (args.includes('--json')) expect(JSON.parse(stderr)).toEqual({ error: { kind: 'output', message } });
        else expect(stderr).toBe(`tally: ${message}\n`);
        expect(code).toBe(1);
      } finally {
        closeSync(full);
        dir.remove();
      }
    },
  );
});

describe('--jq that never yields', () => {
  const run = (args: string[], signalAfterMs?: number) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const dir = tempDir();
      const child = spawn(NODE, [BIN, ...args], { env: { PATH: process.env.PATH, TALLY_CONFIG_DIR: dir.path }, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      if (signalAfterMs !== undefined) setTimeout(() => child.kill('SIGINT'), signalAfterMs);
      const killer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      child.on('close', (code) => {
        clearTimeout(killer);
        dir.remove();
        resolve({ code, stdout, stderr });
      });
    });

  it.each(['repeat(.)', 'last(range(1e9))', 'def f: f; f'])('stops %s at --timeout (exit 1)', async (expression) => {
    const result = await run(['--demo', '--timeout', '2', 'balance', '--jq', expression]);
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stderr)).toEqual({ error: { kind: 'timeout', message: 'timed out after 2s' } });
    expect(result.stdout).toBe('');
  });

  it('stops on Ctrl-C (exit 130)', async () => {
    const result = await run(['--demo', 'balance', '--jq', 'last(range(1e10))'], 1500);
    expect(result.code).toBe(130);
    expect(JSON.parse(result.stderr)).toEqual({ error: { kind: 'interrupted', message: 'interrupted' } });
  });

  it.each([['[range(1e8)]', 'jq ran out of memory'], ['def f: [f]; f', 'jq ran out of memory']])('turns jq failing on %s into exit 2 with a message', async (expression, words) => {
    const result = await run(['--demo', '--timeout', '20', 'balance', '--jq', expression]);
    expect(result.code).toBe(2);
    expect(JSON.parse(result.stderr).error.message).toContain(words);
    expect(result.stderr).not.toContain('Aborted()');
  });

  it('prints results of white space alone, as jq -r does', async () => {
    const result = await run(['--demo', 'balance', '--jq', '"  ", .currency, " "']);
    expect(result).toMatchObject({ code: 0, stdout: '  \nCNY\n \n' });
  });
});
