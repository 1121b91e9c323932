// The earlier build npm run bench compares start-up against (BENCH_REFERENCE, default f29dbd6):
// checked out once from this repository's history into build/reference/COMMIT (a git worktree),
// its dependencies installed from its own lock file and built there, then kept for later runs.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/** The reference build's bin/tally.js, built on first use. */
export function referenceBuild(commit) {
  if (!/^[0-9a-f]{7,40}$/.test(commit)) throw new Error(`BENCH_REFERENCE=${commit} is not a commit id`);
  const dir = join(root, 'build', 'reference', commit);
  const bin = join(dir, 'bin', 'tally.js');
  if (existsSync(join(dir, 'dist', 'main.cjs'))) return bin;
  const say = (text) => process.stderr.write(`bench: ${text}\n`);
  say(`building the reference ${commit} in build/reference/${commit} (once)`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(root, 'build', 'reference'), { recursive: true });
  execFileSync('git', ['-C', root, 'worktree', 'prune']);
  execFileSync('git', ['-C', root, 'worktree', 'add', '--force', '--detach', dir, commit], { stdio: ['ignore', 'ignore', 'inherit'] });
  const env = { ...process.env, NODE_EXTRA_CA_CERTS: process.env.NODE_EXTRA_CA_CERTS ?? '' };
  execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel', 'error'], { cwd: dir, env, stdio: ['ignore', 'ignore', 'inherit'] });
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: dir, env, stdio: ['ignore', 'ignore', 'inherit'] });
  return bin;
}
