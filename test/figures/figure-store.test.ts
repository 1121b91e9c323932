// The run's store of figures (figure-store.ts, Context.figure): each figure once a computation,
// whoever asks. Counted, not timed: the learned grid's file reads, the day series and spend per
// model requests of a weekly report and of `check --max-growth`, on a first run and once the
// grid is known; and a --watch round that asks again (nothing kept from the round before).
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { runCommand, tempDir } from '../helpers.js';
import { sandboxForFile } from '../support/sandbox-fixture.js';

const reads = vi.hoisted(() => ({ grid: 0 }));
vi.mock('../../src/settings/grid-cache.js', async (original) => {
  const real = await original<typeof import('../../src/settings/grid-cache.js')>();
  return {
    ...real,
    readLearnedGrid: (...args: Parameters<typeof real.readLearnedGrid>) => {
      reads.grid++;
      return real.readLearnedGrid(...args);
    },
  };
});

const NOW = Date.UTC(2026, 10, 20, 9, 30);
const fixture = sandboxForFile(NOW);

/** Runs the command in this process against the sandbox with a state folder of its own: what it asked. */
async function counted(args: string[], state: string) {
  reads.grid = 0;
  const before = fixture.sandbox.requests.length;
  const result = await runCommand(args, { env: { ...fixture.env, TALLY_CONFIG_DIR: state }, now: () => NOW });
  expect(result.code, result.stderr).toBe(0);
  const paths = fixture.sandbox.requests.slice(before).map((r) => r.path);
  return { gridReads: reads.grid, series: paths.filter((p) => p === '/v1/open/usage').length, perModel: paths.filter((p) => p === '/v1/open/usage/models').length, paths };
}

describe('a figure once a computation', () => {
  let state: ReturnType<typeof tempDir>;
  beforeEach(() => {
    state = tempDir();
  });
  afterEach(() => state.remove());

  it('a weekly report reads the learned grid once and asks for one day series, on a first run and once the grid is known', async () => {
    const first = await counted(['report', '--period', 'week', '--json'], state.path);
    expect({ gridReads: first.gridReads, series: first.series }).toEqual({ gridReads: 1, series: 1 });
    const again = await counted(['report', '--period', 'week', '--json'], state.path);
    expect({ gridReads: again.gridReads, series: again.series }).toEqual({ gridReads: 1, series: 1 });
  });

  it('check --max-growth asks one day series for both windows (on a first run, the one that learns the grid)', async () => {
    const first = await counted(['check', '--max-growth', '500%', '--last', 'week', '--json'], state.path);
    expect({ gridReads: first.gridReads, series: first.series }).toEqual({ gridReads: 1, series: 1 });
    const again = await counted(['check', '--max-growth', '500%', '--last', 'week', '--json'], state.path);
    expect({ gridReads: again.gridReads, series: again.series, perModel: again.perModel }).toEqual({ gridReads: 1, series: 1, perModel: 0 });
  });

  it('spend per model over one window is asked once however many parts of a report read it', async () => {
    await counted(['report', '--period', 'week', '--json'], state.path);
    const again = await counted(['report', '--period', 'week', '--json'], state.path);
    const windows = fixture.sandbox.requests.slice(-again.paths.length).filter((r) => r.path === '/v1/open/usage/models').map((r) => `${r.query.start}-${r.query.end}`);
    expect(new Set(windows).size).toBe(windows.length);
  });
});
