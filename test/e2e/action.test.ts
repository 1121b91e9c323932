// The GitHub Action: its steps run as a runner runs them (the run: scripts under bash, with
// GITHUB_OUTPUT, GITHUB_STEP_SUMMARY and GITHUB_ENV pointing at temporary files) against the
// sandbox; and nothing in it can be made to run an injected command.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, clockStartingAt, startSandbox } from '../../src/sandbox/server.js';
import { FIXED_CLOCK, tempDir } from '../helpers.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const action = parse(readFileSync(`${root}/action.yml`, 'utf8')) as {
  inputs: Record<string, { default?: string; required?: boolean }>;
  outputs: Record<string, { value: string }>;
  runs: { using: string; steps: { name: string; id?: string; if?: string; uses?: string; run?: string; shell?: string; env?: Record<string, string>; with?: Record<string, string> }[] };
};
const NOW = Date.UTC(2026, 10, 20, 9, 30);
let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ now: clockStartingAt(NOW), dayOffsetMinutes: 480 });
});
afterAll(() => sandbox.close());

/** Evaluates the ${{ }} expressions the action uses, as the runner would. */
function expression(text: string, context: { inputs: Record<string, string>; actionPath: string; temp: string }): string {
  return text.replace(/\$\{\{\s*(.+?)\s*\}\}/g, (_whole, expr: string) => {
    const input = /^inputs\.([\w-]+)$/.exec(expr);
    if (input) return context.inputs[input[1]!] ?? '';
    if (expr === 'github.action_path') return context.actionPath;
    if (expr === 'runner.temp') return context.temp;
    const comparison = /^inputs\.([\w-]+) (==|!=) '(.*)'$/.exec(expr);
    if (comparison) return String((context.inputs[comparison[1]!] === comparison[3]) === (comparison[2] === '=='));
    throw new Error(`an expression the test does not know: ${expr}`);
  });
}

/** Runs a script as the runner runs a bash step (its own file, bash --noprofile --norc -eo pipefail), without blocking the sandbox. */
function bash(script: string, env: NodeJS.ProcessEnv, temp: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const file = `${temp}/step-${Math.random().toString(36).slice(2)}.sh`;
  writeFileSync(file, script);
  return new Promise((resolve) => {
    const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', file], { env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

/** Runs the action's run: steps (setting up Node and installing are the runner's and the checkout's). */
async function runAction(given: Record<string, string>, runner: { temp: string }) {
  const inputs = Object.fromEntries(Object.entries(action.inputs).map(([name, input]) => [name, given[name] ?? input.default ?? '']));
  const files = { GITHUB_OUTPUT: `${runner.temp}/output`, GITHUB_STEP_SUMMARY: `${runner.temp}/summary.md`, GITHUB_ENV: `${runner.temp}/env` };
  for (const file of Object.values(files)) writeFileSync(file, '', { flag: 'a' });
  const context = { inputs, actionPath: root, temp: runner.temp };
  const results: { step: string; status: number | null; stdout: string; stderr: string }[] = [];
  for (const step of action.runs.steps) {
    if (!step.run || step.name === 'Install tally') continue;
    if (step.if && expression(step.if, context) !== 'true') continue;
    const env = Object.fromEntries(Object.entries(step.env ?? {}).map(([name, value]) => [name, expression(value, context)]));
    const result = await bash(step.run, { PATH: process.env.PATH, GITHUB_ACTIONS: 'true', RUNNER_TEMP: runner.temp, ...files, ...env, NODE_OPTIONS: `--require ${FIXED_CLOCK}`, TALLY_TEST_NOW: String(NOW) }, runner.temp);
    results.push({ step: step.name, ...result });
  }
  const outputs = Object.fromEntries(readFileSync(files.GITHUB_OUTPUT, 'utf8').trim().split('\n').filter(Boolean).map((line) => line.split('=') as [string, string]));
  writeFileSync(files.GITHUB_OUTPUT, '');
  return { results, outputs, summary: readFileSync(files.GITHUB_STEP_SUMMARY, 'utf8') };
}

describe('action.yml', () => {
  it('is a composite action whose run: scripts never expand an input, and whose key travels in env: only', () => {
    expect(action.runs.using).toBe('composite');
    for (const step of action.runs.steps) {
      expect(step.run ?? '').not.toMatch(/\$\{\{/);
      for (const [name, value] of Object.entries(step.env ?? {})) if (value.includes('inputs.api-key')) expect(name).toBe('TALLY_API_KEY');
      expect(JSON.stringify(step.with ?? {})).not.toContain('api-key');
    }
    expect(Object.keys(action.inputs)).toEqual(expect.arrayContaining(['base-url', 'api-key', 'args', 'mark']));
    expect(Object.keys(action.outputs)).toEqual(['ok', 'exit-code', 'markdown-file']);
  });

  it('marks at the start and gates the run spend at the end, with outputs, a step summary and annotations', async () => {
    const temp = tempDir();
    try {
      const inputs = { 'base-url': sandbox.baseUrl, 'api-key': sandbox.demoKey };
      const marked = await runAction({ ...inputs, mark: 'true' }, { temp: temp.path });
      expect(marked.results.map((r) => [r.step, r.status, r.stderr])).toEqual([['Record a mark', 0, '']]);
      const gated = await runAction({ ...inputs, args: '--max-run-spend 5 --min-balance 1000000' }, { temp: temp.path });
      expect(gated.results.map((r) => [r.step, r.status])).toEqual([['Check', 5]]);
      expect(gated.outputs).toEqual({ 'markdown-file': `${temp.path}/tally-summary.md`, 'exit-code': '5', ok: 'false' });
      expect(readFileSync(gated.outputs['markdown-file']!, 'utf8')).toContain('| ❌ fail | min-balance |');
      expect(gated.summary).toContain('| ✅ pass | max-run-spend |');
      expect(gated.summary).toContain('| ❌ fail | min-balance |');
      expect(gated.results[0]!.stdout).toContain('::error title=tally check::min-balance: actual ¥');
      expect(gated.results[0]!.stdout + gated.results[0]!.stderr).not.toContain(sandbox.demoKey);
    } finally {
      temp.remove();
    }
  });

  it('checks every line of a multi-line args block, and marks with --fail-open when args has it', async () => {
    const temp = tempDir();
    try {
      const inputs = { 'base-url': sandbox.baseUrl, 'api-key': sandbox.demoKey };
      const gated = await runAction({ ...inputs, args: '--min-balance 200\n--max-daily-used 0.01%\n' }, { temp: temp.path });
      expect(gated.results.map((r) => [r.step, r.status])).toEqual([['Check', 5]]);
      expect(gated.outputs.ok).toBe('false');
      expect(gated.summary).toContain('| ✅ pass | min-balance |');
      expect(gated.summary).toContain('| ❌ fail | max-daily-used |');
      const unusable = await runAction({ ...inputs, args: '--min-balance 200\n--max-daily-usd 1%' }, { temp: temp.path });
      expect(unusable.results[0]!.status).toBe(2);
      expect(unusable.results[0]!.stderr).toContain('--max-daily-usd');
      const stray = await runAction({ ...inputs, args: '--min-balance 200\n80%' }, { temp: temp.path });
      expect(stray.results[0]!.status).toBe(2);
      expect(stray.results[0]!.stderr).toContain('does not take "80%"');
      const down = await runAction({ 'base-url': 'http://127.0.0.1:9', 'api-key': sandbox.demoKey, mark: 'true', args: '--max-run-spend 5\n--fail-open' }, { temp: temp.path });
      expect(down.results.map((r) => [r.step, r.status])).toEqual([['Record a mark', 0]]);
      expect(down.results[0]!.stderr).toContain('no mark was taken');
    } finally {
      temp.remove();
    }
  });

  it('never runs a command hidden in its inputs', async () => {
    const temp = tempDir();
    try {
      const marker = `${temp.path}/pwned`;
      for (const args of [`--min-balance 1 $(touch ${marker})`, `--min-balance 1; touch ${marker}`, `--min-balance 1 \`touch ${marker}\``, `"; touch ${marker}; "`]) {
        const run = await runAction({ 'base-url': sandbox.baseUrl, 'api-key': `x$(touch ${marker})`, args }, { temp: temp.path });
        expect(run.results).toHaveLength(1);
        expect(existsSync(marker)).toBe(false);
      }
      const viaUrl = await runAction({ 'base-url': `${sandbox.baseUrl}$(touch ${marker})`, 'api-key': sandbox.demoKey, mark: 'true' }, { temp: temp.path });
      expect(viaUrl.results).toHaveLength(1);
      expect(existsSync(marker)).toBe(false);
    } finally {
      temp.remove();
    }
  });
});
