// Every example a command's help shows works as printed (against the sandbox): flags exist, values
// parse, and the command answers. Examples that sign in, serve or watch are left to their own tests.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/commands/registry.js';
import { type Sandbox, clockStartingAt, startSandbox } from '../../src/sandbox/server.js';
import { runTally, tempDir } from '../helpers.js';

const NOW = Date.UTC(2026, 10, 20, 9, 30);
let sandbox: Sandbox;
const state = tempDir();
beforeAll(async () => {
  sandbox = await startSandbox({ now: clockStartingAt(NOW), dayOffsetMinutes: 480 });
});
afterAll(async () => {
  await sandbox.close();
  state.remove();
});

/** The words of an example, as a shell would split it, up to a redirection or a pipe. */
function words(example: string): string[] {
  const out: string[] = [];
  for (const match of example.matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)) {
    const word = match[1] ?? match[2] ?? match[3]!;
    if (match[3] !== undefined && /^(\||>|<|#)/.test(word)) break;
    out.push(word);
  }
  return out;
}

const SKIP = /\b(login|logout|sandbox|demo)\b|--watch|--device|^source /;
const examples = COMMANDS.flatMap((c) => [c.example, ...(c.more ?? [])].map((example) => [c.name, example] as const)).filter(([, e]) => e.startsWith('tally ') && !SKIP.test(e));

describe('the examples in every command\'s help', () => {
  it.each(examples)('%s: `%s` works as printed', async (_name, example) => {
    const args = words(example).slice(1);
    const result = await runTally(args, { env: { TALLY_CONFIG_DIR: state.path, TALLY_BASE_URL: sandbox.baseUrl, TALLY_API_KEY: sandbox.demoKey, TZ: 'UTC' }, now: NOW });
    // A check may fail (exit 5) and a config value may be unset: the command itself understood.
    expect([0, 5]).toContain(result.code);
    expect(result.stderr).not.toMatch(/unknown option|is not|must be|goes with/);
  });
});
