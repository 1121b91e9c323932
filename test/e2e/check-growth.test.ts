// check --max-growth says when the window it measures holds a day still running (a part set
// against a whole period), as usage --compare marks it; a window of ended days says nothing of it.
import { describe, expect, it } from 'vitest';
import { runTally } from '../helpers.js';
import { sandboxForFile } from '../support/sandbox-fixture.js';

const NOW = Date.UTC(2026, 10, 25, 9, 30);
const file = sandboxForFile(NOW, { accountLimit: 100_000 });

describe('check --max-growth', () => {
  it('says its window holds a running day, and says nothing of it for ended days', async () => {
    const running = await runTally(['check', '--max-growth', '100000', '--json'], { env: file.env, now: NOW });
    expect(JSON.parse(running.stdout).checks[0].detail).toMatch(/^¥[\d,.]+ over window .* \(part: its last day is still running\) against ¥[\d,.]+ over window /);
    const compare = JSON.parse((await runTally(['usage', '--compare', 'previous', '--json'], { env: file.env, now: NOW })).stdout);
    expect(compare.current.complete).toBe(false);
    const ended = await runTally(['check', '--max-growth', '100000', '--last', 'week', '--json'], { env: file.env, now: NOW });
    expect(JSON.parse(ended.stdout).checks[0].detail).not.toContain('running');
  });
});
