// A profile per project: a .tally.json found from the current folder upward names the profile,
// below --profile and TALLY_PROFILE and above the active one; the statusline's fast path (from
// its cache) follows it too. A file that names nothing usable is said, never guessed around.
import { chownSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { KEYS } from '../../src/sandbox/seed.js';
import { workspaceProfile } from '../../src/settings/workspace.js';
import { runTally, tempDir } from '../helpers.js';
import { sandboxForFile } from '../support/sandbox-fixture.js';

const NOW = Date.UTC(2026, 10, 25, 9, 30);
const fixture = sandboxForFile(NOW, { accountLimit: 100_000 });

describe('.tally.json', () => {
  it('names the profile in its folder and below, under --profile and TALLY_PROFILE, over the active one', async () => {
    const dir = tempDir();
    try {
      const state = join(dir.path, 'state');
      const env = { TALLY_CONFIG_DIR: state, TZ: 'UTC' };
      const tally = (args: string[], cwd: string, extra: NodeJS.ProcessEnv = {}, input?: string) => runTally(args, { env: { ...env, ...extra }, cwd, now: NOW, ...(input ? { input } : {}) });
      const limited = KEYS.find((k) => k.name === 'ci-runner')!.secret;
      for (const [name, key] of [['personal', fixture.sandbox.demoKey], ['ci', limited]] as const) {
        expect((await tally(['--profile', name, 'login', '--base-url', fixture.sandbox.baseUrl, '--with-token'], dir.path, {}, key)).code).toBe(0);
      }
      expect((await tally(['auth', 'switch', 'personal'], dir.path)).code).toBe(0);
      const project = join(dir.path, 'project');
      const deep = join(project, 'src', 'lib');
      mkdirSync(deep, { recursive: true });
      writeFileSync(join(project, '.tally.json'), '{"profile": "ci"}\n');
      const keyName = async (cwd: string, extra: NodeJS.ProcessEnv = {}, flags: string[] = []) => {
        const result = await tally([...flags, 'balance', '--json'], cwd, extra);
        expect(result.code, result.stderr).toBe(0);
        return JSON.parse(result.stdout).api_key.name as string;
      };
      expect(await keyName(dir.path)).toBe('demo');
      expect(await keyName(project)).toBe('ci-runner');
      expect(await keyName(deep)).toBe('ci-runner');
      expect(await keyName(deep, { TALLY_PROFILE: 'personal' })).toBe('demo');
      expect(await keyName(deep, {}, ['--profile', 'personal'])).toBe('demo');
      const status = await tally(['auth', 'status'], deep);
      expect(status.stdout).toMatch(/ci.*\.tally\.json/);
      // The statusline answers from its cache for the project's profile, not the active one.
      expect((await tally(['statusline'], deep)).stdout).toMatch(/¥5\.00/);
      expect((await tally(['statusline'], dir.path)).stdout).toMatch(/¥50\.00/);
      expect((await tally(['statusline', '--max-age', '100000'], deep)).stdout).toMatch(/¥5\.00/);
      // Inside an agent the status line runs wherever the agent runs it: the session's project names the folder.
      const session = (project_dir: string) => JSON.stringify({ session_id: 'a1', model: { display_name: 'Opus' }, workspace: { current_dir: join(project_dir, 'src'), project_dir }, cwd: project_dir });
      expect((await tally(['statusline', '--max-age', '100000', '--format', '{limit}'], dir.path, {}, session(project))).stdout).toBe('¥5.00\n');
      expect((await tally(['statusline', '--check', '--format', '{limit}'], dir.path, {}, session(project))).stdout).toBe('¥5.00\n');
      expect((await tally(['statusline', '--max-age', '100000', '--format', '{limit}'], dir.path, {}, session(dir.path))).stdout).toBe('¥50.00\n');

      writeFileSync(join(project, '.tally.json'), '{"profile": "nobody"}');
      const missing = await tally(['balance'], deep);
      expect(missing.code).toBe(2);
      expect(missing.stderr).toContain(`there is no profile "nobody" (named by ${join(project, '.tally.json')})`);
      writeFileSync(join(project, '.tally.json'), '{"profile": 7}');
      const bad = await tally(['balance'], deep);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain('names no profile');
      expect(bad.stderr.split('\n').filter(Boolean)).toHaveLength(1);
    } finally {
      dir.remove();
    }
  });
});

describe('a .tally.json another user owns', () => {
  it('is passed over with a warning, as git passes over a repository someone else owns', () => {
    const dir = tempDir();
    try {
      writeFileSync(join(dir.path, '.tally.json'), '{"profile": "theirs"}');
      const owner = statSync(join(dir.path, '.tally.json')).uid;
      expect(workspaceProfile(dir.path, owner)).toEqual({ profile: 'theirs', file: join(dir.path, '.tally.json') });
      expect(workspaceProfile(dir.path, owner + 1)).toEqual({ ignored: `${join(dir.path, '.tally.json')} belongs to another user (uid ${owner}), so the profile it names is not used; choose one with --profile or TALLY_PROFILE`, file: join(dir.path, '.tally.json') });
    } finally {
      dir.remove();
    }
  });

  it.skipIf(process.getuid?.() !== 0 && !process.env.CI)('is passed over by the built binary (a shared parent folder), and login says which profile a folder chose', async () => {
    const dir = tempDir();
    try {
      const env = { TALLY_CONFIG_DIR: join(dir.path, 'state'), TZ: 'UTC' };
      const shared = join(dir.path, 'shared');
      const mine = join(shared, 'mine');
      mkdirSync(mine, { recursive: true });
      expect((await runTally(['login', '--base-url', fixture.sandbox.baseUrl, '--with-token'], { env, cwd: dir.path, input: fixture.sandbox.demoKey, now: NOW })).code).toBe(0);
      writeFileSync(join(shared, '.tally.json'), '{"profile": "theirs"}');
      chownSync(join(shared, '.tally.json'), 4242, 4242);
      const balance = await runTally(['balance', '--json'], { env, cwd: mine, now: NOW });
      expect(balance.code, balance.stderr).toBe(0);
      expect(JSON.parse(balance.stdout).api_key.name).toBe('demo');
      expect(balance.stderr).toBe(`warning: ${join(shared, '.tally.json')} belongs to another user (uid 4242), so the profile it names is not used; choose one with --profile or TALLY_PROFILE\n`);
      // One the user owns chooses the profile, and login says so before it stores.
      writeFileSync(join(mine, '.tally.json'), '{"profile": "project"}');
      const login = await runTally(['login', '--base-url', fixture.sandbox.baseUrl, '--with-token'], { env, cwd: mine, input: fixture.sandbox.demoKey, now: NOW });
      expect(login.code).toBe(0);
      expect(login.stderr).toBe(`${join(mine, '.tally.json')} chooses the profile here: this login stores profile "project" (--profile NAME stores another)\n`);
      expect(login.stdout).toMatch(/as profile "project"/);
    } finally {
      dir.remove();
    }
  });
});
