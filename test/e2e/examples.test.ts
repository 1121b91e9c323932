// Every example tally shows works as printed against the sandbox: the ones in each command's help
// and every tally command in the README. The flags exist, the values parse, the command answers.
// Those that sign in, switch profiles, serve, watch or change the shell are left to their own tests.
import { manualText } from '../support/manual.js';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/registry.js';
import { runTally } from '../helpers.js';
import { sandboxForFile } from '../support/sandbox-fixture.js';

const NOW = Date.UTC(2026, 10, 20, 9, 30);
// Some hundred commands in a burst: more than a minute of the gateway's rate limit, which this file is not about.
const file = sandboxForFile(NOW, { accountLimit: 1000 });
const { state } = file;

/** The words of a command, as a shell would split them, up to a comment, a redirection or a pipe. */
function words(line: string): string[] {
  const out: string[] = [];
  for (const match of line.matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)) {
    const word = match[1] ?? match[2] ?? match[3]!;
    if (match[3] !== undefined && /^(\||>|<|#|&&|;)/.test(word)) break;
    out.push(word);
  }
  return out;
}

/** Runs an example's words after `tally` against the sandbox, in a folder of its own (files it writes stay there), and checks it was understood. */
async function worksAsPrinted(line: string): Promise<void> {
  const result = await runTally(words(line).slice(1), { env: file.env, now: NOW, cwd: state.path });
  // A budget gate may fail (exit 5): the command itself understood.
  expect([0, 5]).toContain(result.code);
  expect(result.stderr).not.toMatch(/unknown (option|command)|is not a|must be|goes with|does not apply/);
}

// tally run's examples run a command of the folder they are in: test/e2e/run.test.ts runs them in one that has it;
// tally guard's exit 2 blocks an agent: test/e2e/guard.test.ts runs its examples.
const SKIP = /\b(login|logout|sandbox|demo|mcp)\b|^tally (run|guard|proxy)\b|\bauth switch\b|\bnotify (add|test)\b|--watch|--follow|--device|--serve|--textfile|--all-profiles|--profiles |--by group|\[|^source |\bsource\b/;

const helpExamples = COMMANDS.flatMap((c) => [c.example, ...(c.more ?? [])].map((example) => [c.name, example] as const)).filter(([, e]) => e.startsWith('tally ') && !SKIP.test(e));

describe("the examples in every command's help", () => {
  it.each(helpExamples)('%s: `%s` works as printed', async (_name, example) => worksAsPrinted(example));
});

/** The tally command lines of the manual's sh and console blocks (the README and every page of docs/). */
function readmeCommands(): string[] {
  const readme = manualText();
  const found: string[] = [];
  for (const block of readme.matchAll(/```(sh|console)\n([\s\S]*?)```/g)) {
    for (const raw of block[2]!.split('\n')) {
      const line = block[1] === 'console' ? (raw.startsWith('$ ') ? raw.slice(2) : '') : raw;
      if (/^(npx )?tally /.test(line.trim())) found.push(line.trim().replace(/^npx /, ''));
    }
  }
  return [...new Set(found)].filter((line) => !SKIP.test(line));
}

describe('the manual (the README and docs/)', () => {
  const commands = readmeCommands();
  it('shows many commands', () => {
    expect(commands.length).toBeGreaterThan(30);
  });
  it.each(commands)('`%s` works as printed', async (line) => worksAsPrinted(line));
});

describe('the README\'s --jq table of usage', () => {
  it.each(['compact', 'detailed', 'iso'] as const)('prints every field of each month on the %s naming, never lone tabs', async (naming) => {
    const { startSandbox, clockStartingAt } = await import('../../src/sandbox/server.js');
    const gateway = await startSandbox({ now: clockStartingAt(NOW), naming });
    try {
      // The general runner passes over lines with brackets (placeholders): this one is run here.
      const line = manualText().split('\n').find((l) => l.startsWith('tally ') && l.includes('@tsv'))!;
      const result = await runTally(words(line).slice(1), { env: { ...file.env, TALLY_BASE_URL: gateway.baseUrl }, now: NOW, cwd: state.path });
      expect(result.code).toBe(0);
      const rows = result.stdout.trim().split('\n');
      expect(rows.length).toBeGreaterThan(1);
      for (const row of rows) for (const cell of row.split('\t')) expect(cell).not.toBe('');
    } finally {
      await gateway.close();
    }
  });
});
