// Days of models (figures/model-days.ts): what each model spent day by day, a settled day
// remembered across runs. Anomalies date a model that started or stopped costing money from them
// where the run can have every day in one round (as many requests go out at once as HTTP/2
// carries), and say exactly what narrowing in with longer windows says; the next day a run asks
// only for the days it has not seen settle, beside its first requests: one round in all.
import { readdirSync, writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { nodePool } from '../../src/api/transport.js';
import type { Transport } from '../../src/api/transport-types.js';
import { runCommand, tempDir } from '../helpers.js';
import { sandboxForFile } from '../support/sandbox-fixture.js';

const NOW = Date.UTC(2026, 10, 20, 9, 30);
const DAY = 86_400;
const fixture = sandboxForFile(NOW, { accountLimit: 100_000 });

/**
 * The sandbox over a link that carries `together` requests at once and answers each 100 ms after
 * it is asked: the windows of usage by model asked, and the rounds (a round begins when a request
 * goes out while none is under way).
 */
function link(together: number) {
  const pool = nodePool();
  const log = { windows: [] as { start: number; end: number }[], rounds: 0 };
  let pending = 0;
  const transport: Transport = async (request) => {
    if (pending++ === 0) log.rounds++;
    if (request.url.pathname === '/v1/open/usage/models') log.windows.push({ start: Number(request.url.searchParams.get('start')), end: Number(request.url.searchParams.get('end')) });
    try {
      await new Promise((resolve) => setTimeout(resolve, 100));
      return await pool.transport(request);
    } finally {
      pending--;
    }
  };
  transport.together = async () => together;
  return { transport, log, close: () => pool.close() };
}

async function anomalies(state: string, together: number, now: number) {
  const { transport, log, close } = link(together);
  try {
    const result = await runCommand(['anomalies', '--json'], { env: { ...fixture.env, TALLY_CONFIG_DIR: state }, transport, now: () => now });
    expect(result.code, result.stderr).toBe(0);
    return { out: JSON.parse(result.stdout), stdout: result.stdout, ...log };
  } finally {
    close();
  }
}

const dated = (out: { findings: { kind: string; model?: string; start: number }[] }) => out.findings.filter((a) => ['new_model', 'stopped_model', 'zero_cost'].includes(a.kind)).map((a) => `${a.kind} ${a.model} ${a.start}`);

describe('days of models', () => {
  let states: ReturnType<typeof tempDir>[];
  const state = () => {
    const s = tempDir();
    states.push(s);
    return s.path;
  };
  beforeEach(() => {
    states = [];
  });
  afterEach(() => {
    for (const s of states) s.remove();
  });

  it('dates from one-day windows where they all go out at once: the same dates as narrowing in four at a time', async () => {
    const byDays = await anomalies(state(), 64, NOW);
    const narrowing = await anomalies(state(), 4, NOW);
    // The sandbox has models that started and stopped costing money: something to date.
    expect(dated(byDays.out).length).toBeGreaterThanOrEqual(2);
    expect(byDays.stdout).toBe(narrowing.stdout);
    // Dating asked one-day windows only (besides the two periods, as guessed on UTC's days and then
    // on the gateway's); narrowing asked windows that grow from the window's start (or shrink to its end).
    const window = byDays.out.window as { start: number; end: number };
    const narrowed = (w: { start: number; end: number }) => w.end - w.start > DAY && w.end - w.start !== window.end - window.start;
    expect(byDays.windows.filter(narrowed)).toEqual([]);
    expect(narrowing.windows.filter(narrowed).length).toBeGreaterThan(0);
  });

  it('the next day asks only for the days it has not seen settle, with its first requests: one round, and what a run remembering nothing says', async () => {
    const dir = state();
    await anomalies(dir, 64, NOW);
    const tomorrow = NOW + DAY * 1000;
    const next = await anomalies(dir, 64, tomorrow);
    const fresh = await anomalies(state(), 4, tomorrow);
    expect(next.stdout).toBe(fresh.stdout);
    expect(next.rounds).toBe(1);
    // The two periods and the days it had not seen settle: yesterday (then running) and today
    // (+08:00 days). The spike's day and every other day of both periods were remembered.
    const days = next.windows.filter((w) => w.end - w.start <= DAY).map((w) => new Date(w.start * 1000).toISOString()).sort();
    expect(days).toEqual(['2026-11-19T16:00:00.000Z', '2026-11-20T16:00:00.000Z']);
    expect(next.windows).toHaveLength(4);
  });

  it('a remembered file that is not what tally wrote is not read: every day is asked again, the answer the same', async () => {
    const dir = state();
    const first = await anomalies(dir, 64, NOW);
    const [file] = readdirSync(`${dir}/cache`).filter((f) => f.startsWith('model-days-'));
    expect(file).toBeDefined();
    writeFileSync(`${dir}/cache/${file}`, JSON.stringify({ days: [{ start: 'x' }] }));
    const again = await anomalies(dir, 64, NOW);
    expect(again.stdout).toBe(first.stdout);
    expect(again.windows.filter((w) => w.end - w.start <= DAY).length).toBe(first.windows.filter((w) => w.end - w.start <= DAY).length);
  });
});
