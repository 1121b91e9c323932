// Every configuration block the manual prints (the README and docs/), and what monitoring/ ships, checked with the real
// tool where one exists: promtool for Prometheus's configuration, rules and rule tests,
// systemd-analyze for the units, a YAML parser for workflows, the cron lines' fields, and the
// Grafana dashboard's queries against the series tally writes.
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { tempDir, skipWithout } from '../helpers.js';
import { manualText } from '../support/manual.js';

const root = new URL('../../', import.meta.url).pathname;
// The README and every page of docs/: a recipe's block lives where it is explained.
const readme = manualText();
const blocks = [...readme.matchAll(/```(\w+)\n([\s\S]*?)```/g)].map((m) => ({ lang: m[1]!, text: m[2]! }));
const has = (tool: string) => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0;
// Under CI the real tools are installed by .ci/run: these checks run there, never skip.
const promtool = has('promtool');
const systemd = has('systemd-analyze');
if (process.env.CI === 'true' && (!promtool || !systemd)) throw new Error('CI needs promtool (Debian prometheus) and systemd-analyze (Debian systemd): .ci/run installs them');

describe("the manual's configuration blocks", () => {
  it('parses every YAML block (workflows, Prometheus) as YAML', () => {
    const yaml = blocks.filter((b) => b.lang === 'yaml');
    expect(yaml.length).toBeGreaterThanOrEqual(3);
    for (const block of yaml) expect(() => parseYaml(block.text)).not.toThrow();
    const workflow = parseYaml(yaml.find((b) => b.text.includes('jobs:'))!.text) as { jobs: Record<string, { steps: unknown[] }> };
    expect(Object.values(workflow.jobs)[0]!.steps.length).toBeGreaterThan(2);
  });

  it.skipIf(skipWithout(promtool))('has a prometheus.yml promtool accepts, with the shipped rules beside it', () => {
    const dir = tempDir();
    try {
      const config = blocks.find((b) => b.text.startsWith('# prometheus.yml'))!;
      writeFileSync(`${dir.path}/prometheus.yml`, config.text);
      copyFileSync(`${root}monitoring/alerts.yml`, `${dir.path}/alerts.yml`);
      const checked = spawnSync('promtool', ['check', 'config', `${dir.path}/prometheus.yml`], { encoding: 'utf8' });
      expect(`${checked.stdout}${checked.stderr}`).toContain('SUCCESS');
      expect(checked.status).toBe(0);
    } finally {
      dir.remove();
    }
  });

  it.skipIf(skipWithout(promtool))('has alert rules promtool accepts', () => {
    const dir = tempDir();
    try {
      const rules = blocks.find((b) => b.lang === 'yaml' && b.text.startsWith('groups:'))!;
      writeFileSync(`${dir.path}/rules.yml`, rules.text);
      const checked = spawnSync('promtool', ['check', 'rules', `${dir.path}/rules.yml`], { encoding: 'utf8' });
      expect(checked.status, checked.stdout + checked.stderr).toBe(0);
    } finally {
      dir.remove();
    }
  });

  it.skipIf(skipWithout(systemd))('has systemd units systemd-analyze verifies', () => {
    const dir = tempDir();
    try {
      const home = `${dir.path}/home`;
      const units = `${dir.path}/units`;
      mkdirSync(home, { recursive: true });
      mkdirSync(units, { recursive: true });
      mkdirSync(`${dir.path}/run`, { mode: 0o700 });
      // Verified as written, with no tally placed where a unit might guess it: the units find it on the PATH they set.
      const ini = blocks.filter((b) => b.lang === 'ini');
      expect(ini.length).toBeGreaterThanOrEqual(2);
      const files = ini.map((b) => {
        const name = /^# \S*\/([\w.-]+\.(?:service|timer))/.exec(b.text)![1]!;
        writeFileSync(`${units}/${name}`, b.text);
        return `${units}/${name}`;
      });
      const verified = spawnSync('systemd-analyze', ['--user', 'verify', ...files], { encoding: 'utf8', env: { ...process.env, HOME: home, XDG_RUNTIME_DIR: `${dir.path}/run` } });
      expect(`${verified.stdout}${verified.stderr}`.trim()).toBe('');
      expect(verified.status).toBe(0);
    } finally {
      dir.remove();
    }
  });

  it('runs its cron lines as cron would: only the environment the crontab sets (its PATH line), and tally is found', () => {
    const dir = tempDir();
    try {
      // Where `command -v tally` would point after an install: a folder holding tally.
      const bin = `${dir.path}/bin`;
      mkdirSync(bin);
      symlinkSync(`${root}bin/tally.js`, `${bin}/tally`);
      const cronBlocks = blocks.filter((b) => b.lang === 'sh' && /^[\d*][\d*/,-]* /m.test(b.text));
      expect(cronBlocks.length).toBeGreaterThanOrEqual(3);
      for (const block of cronBlocks) {
        const lines = block.text.split('\n');
        const path = lines.find((l) => l.startsWith('PATH='));
        expect(path, block.text).toBeDefined();
        for (const entry of lines.filter((l) => /^[\d*][\d*/,-]* [\d*]/.test(l))) {
          const command = entry.split(/\s+/).slice(5).join(' ');
          // The crontab's PATH with the folder the user names (what `command -v tally` printed) in place of the example's.
          const cronPath = path!.slice(5).replace('/usr/local/bin', bin);
          const ran = spawnSync('/bin/sh', ['-c', command.replace(/ >\/dev\/null$/, '')], { env: { PATH: cronPath, HOME: dir.path, SHELL: '/bin/sh', TALLY_CONFIG_DIR: `${dir.path}/state` }, encoding: 'utf8', timeout: 20_000 });
          expect(ran.status, `${entry}: ${ran.stderr}`).not.toBe(127);
          expect(ran.stderr).not.toMatch(/not found/);
          // tally ran: it answered, or said in its own words what it needs (no gateway is set up here).
          expect(ran.status === 0 || /^tally: /m.test(ran.stderr), `${entry}: ${ran.status} ${ran.stderr}`).toBe(true);
        }
      }
    } finally {
      dir.remove();
    }
  });

  it('has cron lines of five fields that run tally', () => {
    // The lines of shell blocks that start as a crontab entry does: a minute field, then four more.
    const lines = blocks.filter((b) => b.lang === 'sh').flatMap((b) => b.text.split('\n')).filter((l) => /^[\d*][\d*/,-]* [\d*][\d*/,-]* /.test(l));
    expect(lines.length).toBeGreaterThanOrEqual(2);
    const field = /^(\*|\d{1,2}(-\d{1,2})?)(\/\d{1,2})?(,(\*|\d{1,2}(-\d{1,2})?)(\/\d{1,2})?)*$/;
    for (const line of lines) {
      const parts = line.split(/\s+/);
      expect(parts.slice(0, 5).every((p) => field.test(p)), line).toBe(true);
      expect(parts[5]).toBe('tally');
    }
  });
});

describe('monitoring/', () => {
  it.skipIf(skipWithout(promtool))('ships alert rules that promtool checks and whose tests pass', () => {
    const rules = spawnSync('promtool', ['check', 'rules', 'alerts.yml'], { cwd: `${root}monitoring`, encoding: 'utf8' });
    expect(rules.status, rules.stdout + rules.stderr).toBe(0);
    const tests = spawnSync('promtool', ['test', 'rules', 'alerts.test.yml'], { cwd: `${root}monitoring`, encoding: 'utf8' });
    expect(tests.status, tests.stdout + tests.stderr).toBe(0);
  });

  it('ships a Grafana dashboard whose queries name only series tally writes', () => {
    const dashboard = JSON.parse(readFileSync(`${root}monitoring/grafana-dashboard.json`, 'utf8')) as { panels: { targets: { expr: string }[] }[]; templating: { list: { name: string }[] } };
    const source = readFileSync(`${root}src/output/metrics.ts`, 'utf8');
    const written = new Set([...source.matchAll(/family\('(tally_\w+)'/g)].map((m) => m[1]!));
    expect(written.size).toBeGreaterThan(8);
    const used = dashboard.panels.flatMap((p) => p.targets.flatMap((t) => [...t.expr.matchAll(/\btally_\w+/g)].map((m) => m[0])));
    expect(used.length).toBeGreaterThan(5);
    for (const name of used) expect(written, name).toContain(name);
    expect(dashboard.templating.list.map((v) => v.name)).toEqual(['datasource', 'profile']);
    const rules = readFileSync(`${root}monitoring/alerts.yml`, 'utf8');
    for (const name of rules.match(/\btally_\w+/g)!) expect(written, name).toContain(name);
  });

  it('is shipped in the package', () => {
    const files = JSON.parse(readFileSync(`${root}package.json`, 'utf8')).files as string[];
    expect(files).toContain('monitoring');
    expect(execFileSync('ls', [`${root}monitoring`]).toString().split('\n').filter(Boolean).sort()).toEqual(['alerts.test.yml', 'alerts.yml', 'grafana-dashboard.json']);
  });
});
