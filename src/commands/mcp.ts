// tally mcp: an MCP server over stdio (Claude Code, Claude Desktop, Cursor start it), or with
// --http the Streamable HTTP transport on loopback. Its tools are the documents the commands
// print with --json. Every call runs with the global options the server was started with and the
// profile settled at its start; with --all-profiles (or --profiles a,b) a call may name one of
// them. Nothing but the protocol is written on stdout; notes go to stderr.
import { type FlagValues, declareFlags } from '../flags/declare.js';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import type { CommandLine } from '../cli/command.js';

export const flags = declareFlags({
  http: { kind: 'optional', value: 'host:port', help: 'serve the Streamable HTTP transport at /mcp instead of stdio (default 127.0.0.1: with any free port)' },
});

/** Where the server listens: stdio, or the Streamable HTTP transport at HOST:PORT (a free port when none). */
export interface McpRequest {
  http: string | undefined;
}

export function parse(given: FlagValues<typeof flags>, line: CommandLine): McpRequest {
  if (line.output.json || line.output.csv || line.output.jq) throw new UsageError('tally mcp speaks the Model Context Protocol; --json, --jq and --csv do not apply (every tool returns its JSON document)');
  return { http: given.http === undefined ? undefined : given.http === true ? '127.0.0.1:' : String(given.http) };
}

export async function run(request: McpRequest, ctx: Context): Promise<void> {
  // A server runs until its client goes: --timeout bounds each tool call instead.
  ctx.runUntilInterrupted();
  const fleet = ctx.options.allProfiles === true || ctx.options.profiles !== undefined;
  let profiles: string[] | undefined;
  let profile: string | undefined;
  if (fleet) {
    const { fleetProfiles } = await import('../across-profiles.js');
    profiles = (await fleetProfiles(ctx)).map((p) => p.name);
    if (profiles.length === 0) throw new UsageError('--all-profiles: no profile is stored yet (run `tally login`)');
    // A call that names none runs as the profile this folder would use, when it is among them.
    const own = (await ctx.profileChoice()).profile;
    profile = profiles.includes(own) ? own : profiles[0];
  } else if (!ctx.options.demo) {
    // Settled once: the folder's .tally.json or the active profile at the start is every call's.
    profile = (await ctx.profileChoice()).profile;
  }
  const [{ ToolAnswers }, { serverFactory, serveOverHttp, serveOverStdio }] = await Promise.all([import('../mcp/answers.js'), import('../mcp/server.js')]);
  const configFile = `${await ctx.stateDir()}/config.json`;
  const answers = new ToolAnswers(ctx, { profile, profiles, localStamp: () => fileStamp(configFile) });
  const factory = await serverFactory(ctx, answers, profiles);
  if (request.http === undefined) return serveOverStdio(ctx, factory);
  return serveOverHttp(ctx, factory, request.http);
}

/** What changes when a settings file is written (tally replaces it whole, so its inode changes too). */
function fileStamp(path: string): string {
  const { statSync } = process.getBuiltinModule('node:fs');
  try {
    const stat = statSync(path, { bigint: true });
    return `${stat.ino}:${stat.size}:${stat.mtimeNs}`;
  } catch {
    return 'none';
  }
}
