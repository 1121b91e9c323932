// Waits that end well and memory that is known before anything is sent (the fifth hardening
// round): a lock another tally holds past --timeout, in check --notify and report --send, and a
// report memory that cannot be written. The built binary against the sandbox and a real receiver.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox, clockStartingAt, startSandbox } from '../../src/sandbox/server.js';
import { runTally, tempDir } from '../helpers.js';
import { type Received, startReceiver } from '../support/receiver.js';

const NOW = Date.UTC(2026, 10, 20, 9, 30);
let sandbox: Sandbox;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let receiverUrl: string;
let received: Received[];
const state = tempDir();
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  sandbox = await startSandbox({ now: clockStartingAt(NOW), dayOffsetMinutes: 480, accountLimit: 5000 });
  receiver = await startReceiver();
  ({ url: receiverUrl, received } = receiver);
  env = { TALLY_CONFIG_DIR: state.path, TALLY_BASE_URL: sandbox.baseUrl, TALLY_API_KEY: sandbox.demoKey, TZ: 'UTC' };
});
afterAll(async () => {
  await sandbox.close();
  await receiver.close();
  state.remove();
});
beforeEach(() => {
  received.length = 0;
});

const tally = (args: string[], input?: string) => runTally(args, { env, now: NOW, input });

describe('waits and memory, hardened', () => {
  /** A live process that holds `lock` (its pid in it, as a tally holding it writes), until released. */
  async function holdLock(lock: string): Promise<() => void> {
    const { spawn } = await import('node:child_process');
    const { mkdirSync, writeFileSync, rmSync } = await import('node:fs');
    const { dirname } = await import('node:path');
    const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
    mkdirSync(dirname(lock), { recursive: true });
    writeFileSync(lock, String(holder.pid));
    return () => {
      holder.kill();
      rmSync(lock, { force: true });
    };
  }

  it('check --notify whose alert memory another tally holds past --timeout: the check keeps its own exit code, says it waited, and warns that alerts were not sent', async () => {
    const { alertStatePath } = await import('../../src/settings/alert-state.js');
    await tally(['notify', 'add', 'held', '--kind', 'webhook'], `${receiverUrl}/held\n`);
    const release = await holdLock(`${alertStatePath(state.path, 'default', new URL(sandbox.baseUrl), sandbox.demoKey)}.lock`);
    try {
      const result = await tally(['check', '--min-balance', '999999999', '--notify', 'held', '--timeout', '2']);
      expect(result.code, result.stderr).toBe(5);
      expect(result.stdout).toMatch(/^FAIL {2}min-balance/m);
      expect(result.stderr).toMatch(/waiting for the alert memory: it is held by tally process \d+, still running; waiting until --timeout \(\ds\), Ctrl-C to stop…\n/);
      expect(result.stderr).toMatch(/warning: alerts were not sent: timed out after 2s waiting for the alert memory, which another tally process holds\n/);
      expect(received.filter((r) => r.path === '/held')).toHaveLength(0);
    } finally {
      release();
    }
  });

  it('report --send waits for another send within --timeout and ends as timed out (exit 1), saying what it waited for', async () => {
    const { alertStatePath } = await import('../../src/settings/alert-state.js');
    await tally(['notify', 'add', 'busy', '--kind', 'webhook'], `${receiverUrl}/busy\n`);
    const release = await holdLock(`${alertStatePath(state.path, 'default', new URL(sandbox.baseUrl), sandbox.demoKey)}.lock`);
    try {
      const result = await tally(['report', '--send', 'busy', '--timeout', '2']);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/waiting for the memory of sent reports: it is held by tally process \d+, still running/);
      expect(result.stderr).toMatch(/tally: timed out after 2s waiting for the memory of sent reports, which another tally process holds\n/);
      expect(result.stderr).not.toContain('unexpected');
      expect(received.filter((r) => r.path === '/busy')).toHaveLength(0);
    } finally {
      release();
    }
  });

  it('report --send posts nothing when it could not remember having sent it (the memory a folder)', async () => {
    const { alertStatePath } = await import('../../src/settings/alert-state.js');
    const { mkdirSync, rmSync } = await import('node:fs');
    await tally(['notify', 'add', 'forgetful', '--kind', 'webhook'], `${receiverUrl}/forgetful\n`);
    const path = alertStatePath(state.path, 'default', new URL(sandbox.baseUrl), sandbox.demoKey);
    rmSync(path, { force: true });
    mkdirSync(path, { recursive: true });
    try {
      for (let i = 0; i < 2; i++) {
        const result = await tally(['report', '--send', 'forgetful', '--force']);
        expect(result.code, result.stderr).toBe(2);
        expect(result.stderr).toMatch(/^tally: the report was not sent: tally could not remember sending it \(.*\), so every run would send it again\n/);
      }
      expect(received.filter((r) => r.path === '/forgetful')).toHaveLength(0);
    } finally {
      rmSync(path, { recursive: true, force: true });
    }
  });
});
