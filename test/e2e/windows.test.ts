// One window rule: date-only bounds name the gateway's grid days whatever TZ is and on the first
// run as on later ones; a --utc-offset the gateway's days are not on is said, not obeyed blindly;
// an empty window is an error.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, clockStartingAt, startSandbox } from '../../src/sandbox/server.js';
import { runTally, tempDir } from '../helpers.js';

const NOW = Date.UTC(2026, 10, 20, 9, 30);
const GRIDS: [string, number][] = [['+08:00', 480], ['-05:00', -300], ['+05:45', 345], ['+00:00', 0]];
const sandboxes = new Map<string, Sandbox>();
beforeAll(async () => {
  for (const [name, minutes] of GRIDS) sandboxes.set(name, await startSandbox({ now: clockStartingAt(NOW), dayOffsetMinutes: minutes }));
});
afterAll(async () => {
  await Promise.all([...sandboxes.values()].map((s) => s.close()));
});

function runner(grid: string, tz: string) {
  const sandbox = sandboxes.get(grid)!;
  const state = tempDir();
  const env = { TALLY_CONFIG_DIR: state.path, TALLY_BASE_URL: sandbox.baseUrl, TALLY_API_KEY: sandbox.demoKey, TZ: tz };
  return { run: (args: string[]) => runTally(args, { env, now: NOW }), state };
}

describe('date-only bounds name the days of the gateway grid', () => {
  it.each(GRIDS.flatMap(([grid]) => ['UTC', 'Asia/Shanghai', 'America/New_York', 'Pacific/Kiritimati'].map((tz) => [grid, tz])))(
    'on a %s grid with TZ=%s: 11-01 to 11-08 is the seven days labelled 11-01 to 11-07, on the first run and later ones',
    async (grid, tz) => {
      const { run, state } = runner(grid, tz);
      try {
        for (const round of ['first', 'second']) {
          const result = await run(['usage', '--since', '2026-11-01', '--until', '2026-11-08', '--json']);
          expect([round, result.code, result.stderr]).toEqual([round, 0, '']);
          const out = JSON.parse(result.stdout);
          expect(out.buckets).toHaveLength(7);
          expect([out.start_iso, out.end_iso]).toEqual([`2026-11-01T00:00:00${grid}`, `2026-11-08T00:00:00${grid}`]);
          const table = await run(['usage', '--since', '2026-11-01', '--until', '2026-11-08']);
          const days = table.stdout.split('\n').filter((l) => /^2026-\d\d-\d\d /.test(l)).map((l) => l.slice(0, 10));
          expect(days).toEqual(['2026-11-01', '2026-11-02', '2026-11-03', '2026-11-04', '2026-11-05', '2026-11-06', '2026-11-07']);
          expect(table.stdout).toContain('(7 days)');
        }
      } finally {
        state.remove();
      }
    },
  );
});

describe('a --utc-offset the gateway is not on', () => {
  it('says so and labels the days by the grid the gateway uses: 7 days, none outside the window', async () => {
    const { run, state } = runner('+08:00', 'UTC');
    try {
      const result = await run(['usage', '--utc-offset', '+05:00', '--since', '2026-11-01', '--until', '2026-11-08']);
      expect(result.code).toBe(0);
      expect(result.stderr).toBe("warning: the gateway's days start at 00:00 UTC+08:00, not on the UTC+05:00 grid --utc-offset names; days are labelled by the grid the gateway uses\n");
      const days = result.stdout.split('\n').filter((l) => /^2026-\d\d-\d\d /.test(l)).map((l) => l.slice(0, 10));
      expect(days).toEqual(['2026-11-01', '2026-11-02', '2026-11-03', '2026-11-04', '2026-11-05', '2026-11-06', '2026-11-07']);
      expect(result.stdout).toContain('window 2026-11-01 00:00 → 2026-11-08 00:00 UTC+08:00 (7 days)');
      // A grid the same instants name a day apart (+13:00 for -11:00) is the flag's to settle: no word.
    } finally {
      state.remove();
    }
  });

  it.each(['+14:30', '+05:20', '-12:30', '+15:00', '-13:00'])('refuses %s, an offset no zone uses (exit 2, no request)', async (offset) => {
    const { run, state } = runner('+08:00', 'UTC');
    try {
      const before = sandboxes.get('+08:00')!.requests.length;
      const result = await run(['usage', '--utc-offset', offset]);
      expect(result.code).toBe(2);
      expect(result.stderr).toBe(`tally: --utc-offset "${offset}" is not a UTC offset in use (-12:00 to +14:00, minutes 00, 30 or 45)\n`);
      expect(sandboxes.get('+08:00')!.requests.length).toBe(before);
    } finally {
      state.remove();
    }
  });
});

describe('an empty window', () => {
  it.each([
    [['usage', '--since', '0d']],
    [['usage', '--bucket', 'hour', '--since', '0h']],
    [['logs', '--since', '0m']],
    [['logs', '--since', 'now']],
    [['check', '--max-spend', '1', '--since', '0d']],
  ])('is exit 2 with a reason, never an empty answer: %j', async (args) => {
    const { run, state } = runner('+08:00', 'UTC');
    try {
      const result = await run(args);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(/^tally: the window from --since \S+ to now is empty; ask for a window with time in it\n$/);
    } finally {
      state.remove();
    }
  });
});
