// One sandbox for the e2e tests of a file: started on a fixed clock before them, closed after,
// with a state folder of its own and the environment that points the built binary at both.
import { afterAll, beforeAll } from 'vitest';
import { type Sandbox, type SandboxOptions, clockStartingAt, startSandbox } from '../../src/sandbox/server.js';
import { tempDir } from '../helpers.js';

export interface SandboxFixture {
  readonly sandbox: Sandbox;
  readonly state: { path: string; remove: () => void };
  /** TALLY_CONFIG_DIR, TALLY_BASE_URL, TALLY_API_KEY (the demo key) and TZ. */
  readonly env: NodeJS.ProcessEnv;
}

/** The sandbox at `now` (ms) on the +08:00 grid unless `options` say otherwise; TZ is `zone`. */
export function sandboxForFile(now: number, options: SandboxOptions = {}, zone = 'UTC'): SandboxFixture {
  const state = tempDir();
  let sandbox: Sandbox | undefined;
  let env: NodeJS.ProcessEnv = {};
  beforeAll(async () => {
    sandbox = await startSandbox({ now: clockStartingAt(now), dayOffsetMinutes: 480, ...options });
    env = { TALLY_CONFIG_DIR: state.path, TALLY_BASE_URL: sandbox.baseUrl, TALLY_API_KEY: sandbox.demoKey, TZ: zone };
  });
  afterAll(async () => {
    await sandbox?.close();
    state.remove();
  });
  return {
    get sandbox() {
      if (!sandbox) throw new Error('the sandbox starts before the tests (use it inside them)');
      return sandbox;
    },
    state,
    get env() {
      return env;
    },
  };
}
