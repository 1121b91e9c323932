// The manual: the reference pages and the man page are what the commands' definitions make now
// (npm run docs --check), the man page reads cleanly in groff and is the package's `man`, every
// topic has its page and prints with `tally help TOPIC`, the README stays within its five minutes
// and CONTRIBUTING.md names every room of src/.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/registry.js';
import { TOPICS } from '../../src/manual/topics.js';
import { NODE, runTally, skipWithout } from '../helpers.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const groff = spawnSync('sh', ['-c', 'command -v groff']).status === 0;

describe('the generated reference', () => {
  it('is current: npm run docs --check finds nothing to write', () => {
    const result = spawnSync(NODE, [join(root, 'scripts/docs.mjs'), '--check'], { cwd: root, encoding: 'utf8', env: { ...process.env, NODE_EXTRA_CA_CERTS: '' } });
    expect(result.status, result.stderr).toBe(0);
  }, 60_000);

  it('has a page for every command, each with its synopsis, examples and exit codes', () => {
    for (const entry of COMMANDS) {
      const page = readFileSync(join(root, 'docs/commands', `${entry.name.replace(/ /g, '-')}.md`), 'utf8');
      expect(page.startsWith(`# tally ${entry.name}\n`), entry.name).toBe(true);
      expect(page).toContain(`\`\`\`sh\n${entry.example}\n`);
      expect(page).toMatch(/## Exit codes\n/);
    }
  });

  it.skipIf(skipWithout(groff))('ships a man page groff reads without a warning, named in package.json', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    expect(pkg.man).toBe('./man/tally.1');
    expect(pkg.files).toEqual(expect.arrayContaining(['docs', 'man']));
    const checked = spawnSync('groff', ['-man', '-z', '-ww', join(root, 'man/tally.1')], { encoding: 'utf8' });
    expect([checked.status, checked.stderr]).toEqual([0, '']);
    const text = spawnSync('groff', ['-man', '-Tutf8', join(root, 'man/tally.1')], { encoding: 'utf8' }).stdout;
    for (const entry of COMMANDS) expect(text).toContain(`tally ${entry.name}`);
  });
});

describe('tally help TOPIC', () => {
  it('prints each topic as its page of docs/ holds it', async () => {
    for (const topic of TOPICS) {
      const result = await runTally(['help', topic.name]);
      expect([result.code, result.stderr], topic.name).toEqual([0, '']);
      expect(result.stdout).toBe(readFileSync(join(root, 'docs', `${topic.name}.md`), 'utf8'));
    }
    expect((await runTally(['help', 'fleets'])).stdout).toBe(readFileSync(join(root, 'docs/profiles.md'), 'utf8'));
  });

  it('lists the topics in the program\'s help, leaves a command\'s help to the command, and refuses a word that is neither', async () => {
    const help = await runTally(['help']);
    expect(help.stdout.replace(/\s+/g, ' ')).toContain(`Topics of the manual (tally help TOPIC): ${TOPICS.map((t) => t.name).join(', ')}.`);
    const check = await runTally(['help', 'check']);
    expect([check.code, check.stdout]).toEqual([0, expect.stringMatching(/^Usage: tally check/)]);
    const wrong = await runTally(['help', 'bugdets']);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/^tally: "bugdets" is neither a command nor a topic of the manual\. Topics: windows, /);
  });
});

describe('the pages people read first', () => {
  it('keep the README to its five minutes, linking every topic', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    expect(readme.split('\n').length).toBeLessThanOrEqual(300);
    for (const topic of TOPICS) expect(readme).toContain(`(docs/${topic.name}.md)`);
    // Every command with an example that works as printed (the examples test runs each).
    for (const entry of COMMANDS) expect(readme, entry.name).toContain(`\n${entry.example}\n`);
    expect(readme).toContain('(CONTRIBUTING.md)');
    // Every relative link of the README and docs/ leads to a file that exists.
    for (const folder of ['', 'docs', 'docs/commands']) {
      for (const name of readdirSync(join(root, folder)).filter((f) => f.endsWith('.md'))) {
        const text = readFileSync(join(root, folder, name), 'utf8');
        for (const [, target] of text.matchAll(/\]\(((?!https?:|#|mailto:)[^)#\s]+)(?:#[^)]*)?\)/g)) expect(existsSync(join(root, folder, target!)), `${folder}/${name} -> ${target}`).toBe(true);
      }
    }
  });

  it('name every room of src/ in CONTRIBUTING.md', () => {
    const contributing = readFileSync(join(root, 'CONTRIBUTING.md'), 'utf8');
    const rooms = readdirSync(join(root, 'src')).filter((f) => statSync(join(root, 'src', f)).isDirectory());
    for (const room of rooms) expect(contributing, room).toContain(`| \`src/${room}/\` |`);
  });
});
