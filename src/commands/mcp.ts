// tally mcp: an MCP server over stdio (Claude Code, Claude Desktop, Cursor start it), or with
// --http the Streamable HTTP transport on loopback. Its tools are the documents the commands
// print with --json; the stored profile answers (with --all-profiles, any stored one, named by
// each call). Nothing but the protocol is written on stdout; notes go to stderr.
import type { Command } from 'commander';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';

export function configure(command: Command): void {
  command.option('--http [host:port]', 'serve the Streamable HTTP transport at /mcp instead of stdio (default 127.0.0.1: with any free port)');
}

export async function run(options: Record<string, unknown>, ctx: Context): Promise<void> {
  if (ctx.options.json || ctx.options.csv || ctx.options.jq !== undefined) throw new UsageError('tally mcp speaks the Model Context Protocol; --json, --jq and --csv do not apply (every tool returns its JSON document)');
  // A server runs until its client goes: --timeout bounds each tool call instead.
  ctx.runUntilInterrupted();
  const profiles = ctx.options.allProfiles ? (await ctx.store()).profileNames().sort() : undefined;
  if (profiles && profiles.length === 0) throw new UsageError('--all-profiles: no profile is stored yet (run `tally login`)');
  const { serverFactory, serveOverHttp, serveOverStdio } = await import('../mcp/server.js');
  const factory = await serverFactory(ctx, profiles);
  if (options.http === undefined) return serveOverStdio(ctx, factory);
  return serveOverHttp(ctx, factory, options.http === true ? '127.0.0.1:' : String(options.http));
}
