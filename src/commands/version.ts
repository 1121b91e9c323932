// tally version: the version, as `tally --version` prints it (gh has both); --json adds where it runs.
import type { Command } from 'commander';
import type { Context } from '../context.js';
import { type NoRequest, noRequest } from '../cli/command.js';
import { emit } from '../output/emit.js';

export function configure(command: Command): void {
  command.description('print the version and the Node that runs it: `tally X.Y.Z (Node 22.x, linux-x64)` (--version prints the number alone, for scripts)');
}

export const parse = noRequest;

export async function run(_request: NoRequest, ctx: Context): Promise<void> {
  const version = typeof __TALLY_VERSION__ === 'string' ? __TALLY_VERSION__ : 'dev';
  await emit(ctx, {
    json: { version, node: process.versions.node, platform: process.platform, arch: process.arch },
    // The version, and the Node it runs on (a PATH may hold several: the one that answers is named).
    human: () => `tally ${version} (Node ${process.versions.node}, ${process.platform}-${process.arch})\n`,
  });
}
