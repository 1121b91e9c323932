// Ready to publish and to put on the PATH: what `npm pack` ships runs by itself.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runTally } from '../helpers.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

describe('the package', () => {
  it('is publishable: not private, a bin, the Node it needs, and the files a run needs', () => {
    const pkg = JSON.parse(readFileSync(`${root}/package.json`, 'utf8'));
    expect(pkg.private).toBeUndefined();
    expect(pkg.bin).toEqual({ tally: 'bin/tally.js' });
    expect(pkg.engines.node).toMatch(/^>=20/);
    const packed = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--ignore-scripts', '--json'], { cwd: root, stdio: ['ignore', 'pipe', 'ignore'] }).toString())[0];
    const files = packed.files.map((f: { path: string }) => f.path);
    for (const needed of ['bin/tally.js', 'bin/load-bundle.cjs', 'dist/main.cjs', 'dist/fast.cjs', 'dist/commands.json', 'dist/command-balance.cjs', 'dist/command-balance.cjs.cache', 'README.md', 'package.json']) expect(files).toContain(needed);
    expect(files.filter((f: string) => f.startsWith('src/') || f.startsWith('test/'))).toEqual([]);
  });

  it('answers `tally version` as gh does, the same as --version', async () => {
    const [version, flag] = await Promise.all([runTally(['version']), runTally(['--version'])]);
    expect(version.stdout).toBe(`tally ${flag.stdout}`);
    const json = JSON.parse((await runTally(['version', '--json'])).stdout);
    expect(json).toEqual({ version: flag.stdout.trim(), node: process.versions.node, platform: process.platform, arch: process.arch });
  });
});
