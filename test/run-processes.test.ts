// The run's processes (src/run/processes.ts, src/run/supervise.ts): whatever tree a command grows
// (children that call setsid, a daemon's double fork, nohup, a child that ignores SIGTERM, a parent
// that exits early and leaves its children, a command in the terminal's process group), a stop
// leaves none of them running, and the end of a command that left some running stops those too.
// Real processes, a property over their trees: each case is a tree fast-check draws.
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { Supervised } from '../src/run/supervise.js';
import { RunProcesses } from '../src/run/processes.js';

const work = mkdtempSync(join(tmpdir(), 'tally-tree-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

type Kind = 'plain' | 'setsid' | 'doublefork' | 'nohup' | 'ignoreterm' | 'early' | 'clearedenv';
interface Node {
  kind: Kind;
  children: Node[];
}

/** One process of a tree: writes its pid, starts its children as its kind says, then waits (or, early, exits). */
const TREE = `
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
const [dir, spec] = process.argv.slice(2);
const node = JSON.parse(spec);
writeFileSync(dir + '/' + process.pid, node.kind);
if (node.kind === 'ignoreterm') process.on('SIGTERM', () => {});
const self = process.argv[1];
for (const child of node.children) {
  const args = [self, dir, JSON.stringify(child)];
  if (child.kind === 'setsid') spawn(process.execPath, args, { stdio: 'ignore', detached: true }).unref();
  else if (child.kind === 'nohup') spawn('nohup', [process.execPath, ...args], { stdio: 'ignore' }).unref();
  else if (child.kind === 'clearedenv') spawn(process.execPath, args, { stdio: 'ignore', env: {} }).unref();
  else if (child.kind === 'doublefork') {
    // A daemon: the middle process starts the child in a session of its own and exits.
    const middle = "const { spawn } = require('node:child_process'); spawn(process.execPath, " + JSON.stringify(args) + ", { stdio: 'ignore', detached: true }).unref(); setTimeout(() => process.exit(0), 50);";
    spawn(process.execPath, ['-e', middle], { stdio: 'ignore' });
  } else spawn(process.execPath, args, { stdio: 'ignore' });
}
writeFileSync(dir + '/' + process.pid + '.started', '');
if (node.kind === 'early') setTimeout(() => process.exit(0), 300);
else setInterval(() => {}, 1000);
`;
const tree = join(work, 'tree.mjs');
writeFileSync(tree, TREE);

const count = (node: Node): number => 1 + node.children.reduce((n, c) => n + count(c), 0);

/** Whether a process runs (a zombie has ended: only its parent's wait is left). */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

const pidsIn = (dir: string) => readdirSync(dir).filter((f) => /^\d+$/.test(f)).map(Number);
const startedIn = (dir: string) => readdirSync(dir).filter((f) => f.endsWith('.started')).length;

async function until(test: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!test()) {
    if (Date.now() > end) throw new Error('the tree did not grow in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const kinds: Kind[] = ['plain', 'setsid', 'doublefork', 'nohup', 'ignoreterm', 'early'];
const leaf = fc.constantFrom(...kinds).map((kind): Node => ({ kind, children: [] }));
const nodeOf = (depth: number): fc.Arbitrary<Node> =>
  depth === 0 ? leaf : fc.record({ kind: fc.constantFrom(...kinds), children: fc.array(nodeOf(depth - 1), { maxLength: 2 }) });
// The command itself is a plain process (it is what tally starts); what it starts is drawn.
const trees = fc.record({ kind: fc.constant<Kind>('plain'), children: fc.array(nodeOf(2), { minLength: 1, maxLength: 3 }) });
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe.skipIf(process.platform !== 'linux')('the run owns every process it starts', () => {
  it('leaves none of a tree running after a stop, whatever the tree (setsid, double fork, nohup, SIGTERM ignored, a parent gone early), in a group or the terminal\'s', async () => {
    await fc.assert(
      fc.asyncProperty(trees, fc.constantFrom<'group' | 'tree'>('group', 'tree'), async (root, mode) => {
        const dir = mkdtempSync(join(work, 'case-'));
        const child = await Supervised.start(process.execPath, [tree, dir, JSON.stringify(root)], { mode, env: { PATH: process.env.PATH } });
        // Every process has started its children (the early ones may have gone already).
        await until(() => startedIn(dir) >= count(root) - 0 && pidsIn(dir).length >= count(root));
        await sleep(100);
        await child.stop(300, sleep);
        child.release();
        const left = pidsIn(dir).filter(running);
        expect(left.map((pid) => `${pid} (${readFileSync(join(dir, String(pid)), 'utf8')})`)).toEqual([]);
      }),
      { numRuns: 8, seed: 7, endOnFailure: true },
    );
  }, 120_000);

  it('stops what a command left running when it ended by itself, and says how many', async () => {
    const dir = mkdtempSync(join(work, 'end-'));
    const root: Node = { kind: 'early', children: [{ kind: 'setsid', children: [] }, { kind: 'doublefork', children: [{ kind: 'ignoreterm', children: [] }] }, { kind: 'nohup', children: [] }] };
    const child = await Supervised.start(process.execPath, [tree, dir, JSON.stringify(root)], { mode: 'group', env: { PATH: process.env.PATH } });
    await until(() => pidsIn(dir).length >= count(root));
    await child.exited;
    expect(child.anyAlive()).toBe(true);
    expect(child.processes().length).toBe(4);
    await child.stop(300, sleep);
    child.release();
    expect(pidsIn(dir).filter(running)).toEqual([]);
  }, 30_000);

  it('follows a child that cleared its environment once it was seen under the run, and knows nothing of one it never saw', async () => {
    const dir = mkdtempSync(join(work, 'cleared-'));
    const root: Node = { kind: 'plain', children: [{ kind: 'clearedenv', children: [] }] };
    const child = await Supervised.start(process.execPath, [tree, dir, JSON.stringify(root)], { mode: 'tree', env: { PATH: process.env.PATH } });
    await until(() => startedIn(dir) >= 2);
    // Seen under the command (its parent): the run's, although it carries no mark.
    expect(child.processes().length).toBe(2);
    await child.stop(300, sleep);
    child.release();
    expect(pidsIn(dir).filter(running)).toEqual([]);
    // A process the run never saw and that carries no mark is not the run's.
    const stranger = new RunProcesses('0123456789ab');
    expect(stranger.scan()).toEqual([]);
  }, 30_000);

  it('marks the command\'s environment with a variable only this run sets', () => {
    const processes = new RunProcesses('a1b2c3d4e5f6');
    expect(processes.marked({ PATH: '/bin' })).toEqual({ PATH: '/bin', TALLY_RUN_a1b2c3d4e5f6: '1' });
  });
});
