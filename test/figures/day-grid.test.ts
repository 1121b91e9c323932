// Time settings and the day grid (figures/day-grid.ts): where times are shown and which grid a
// window's days lie on, before any usage comes back: --utc-offset, else what an earlier run
// learned for this gateway (remembered per base URL), else nothing known (learned from the days).
import { existsSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { gridMismatch, rememberInferredGrid, timeSettings } from '../../src/figures/day-grid.js';
import { readLearnedGrid } from '../../src/settings/grid-cache.js';
import { GW, KEY, tempDir, testContext } from '../helpers.js';

const NOW = Date.UTC(2026, 10, 27, 9, 0);

describe('time settings', () => {
  it('--utc-offset names the grid (and the zone, unless TZ was given)', async () => {
    const { ctx } = testContext({ env: { TALLY_BASE_URL: GW, TALLY_API_KEY: KEY } });
    const time = await timeSettings(ctx, { utcOffset: '+08:00' });
    expect(time.known).toEqual({ offset: 28_800, source: 'flag' });
  });

  it('a grid an earlier run learned for this gateway is known; another gateway\'s is not', async () => {
    const state = tempDir();
    try {
      const env = { TALLY_BASE_URL: GW, TALLY_API_KEY: KEY, TALLY_CONFIG_DIR: state.path };
      const first = testContext({ env, now: () => NOW }).ctx;
      const time = await timeSettings(first, {});
      expect(time.known).toBeUndefined();
      await rememberInferredGrid(first, time, -5 * 3600);
      expect(readLearnedGrid(state.path, new URL(GW + '/'))).toBe(-18_000);
      const next = testContext({ env, now: () => NOW }).ctx;
      expect((await timeSettings(next, {})).known).toEqual({ offset: -18_000, source: 'learned' });
      const other = testContext({ env: { ...env, TALLY_BASE_URL: 'https://other.test' }, now: () => NOW }).ctx;
      expect((await timeSettings(other, {})).known).toBeUndefined();
    } finally {
      state.remove();
    }
  });

  it('a demo run neither reads nor writes a learned grid', async () => {
    const state = tempDir();
    try {
      const { ctx } = testContext({ env: { TALLY_CONFIG_DIR: state.path }, demo: true, now: () => NOW });
      const time = await timeSettings(ctx, {});
      expect(time.known).toBeUndefined();
      await rememberInferredGrid(ctx, time, 28_800);
      expect(existsSync(`${state.path}/cache`) ? readdirSync(`${state.path}/cache`).filter((f) => f.startsWith('grid-')) : []).toEqual([]);
    } finally {
      state.remove();
    }
  });

  it('says in words a named grid the gateway\'s days are not on', () => {
    expect(gridMismatch({ offset: 28_800, source: 'inferred', claimed: { offset: 0, source: 'flag' } })).toBe("the gateway's days start at 00:00 UTC+08:00, not on the UTC+00:00 grid --utc-offset names; days are labelled by the grid the gateway uses");
    expect(gridMismatch({ offset: 28_800, source: 'inferred', claimed: { offset: 3_600, source: 'profile' } })).toContain("the profile's utc_offset");
  });
});
