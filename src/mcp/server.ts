// `tally mcp`: the Model Context Protocol server, built with the protocol's official TypeScript
// SDK (@modelcontextprotocol/server 2.x, the 2026-07-28 revision, which still answers 2025-era
// clients), loaded only by this command. Each tool's call is answered by ToolAnswers (answers.ts):
// the command's --json document, validated against the schema `tally schema` publishes.
// Schemas are compiled once per server, never per connection or request.
import type { Context } from '../context.js';
import { importExternal } from '../external.js';
import { shippedJson } from '../shipped.js';
import { isLoopback } from '../domain/loopback.js';
import { DATA_NOTE, TOOLS, type ToolSpec, inputSchema } from './tools.js';
import { ToolAnswers } from './answers.js';

type Sdk = typeof import('@modelcontextprotocol/server');
type Stdio = typeof import('@modelcontextprotocol/server/stdio');
type McpServerInstance = InstanceType<Sdk['McpServer']>;
type StandardSchemaWithJSON<I, O> = ReturnType<typeof import('@modelcontextprotocol/server').fromJsonSchema<O>> & { readonly '~types'?: I };

export const INSTRUCTIONS = `Read-only figures of an LLM inference gateway account and API key: balance, limits, spend over time and per model, budgets, prices, forecasts, anomalies, an audit of the bill against the prices. Each tool answers with one JSON document. ${DATA_NOTE} To hold spending to a limit, the person runs the work under \`tally run --max-spend AMOUNT -- COMMAND\` (it stops the command and everything it started past the limit) or sets \`tally guard\` as a hook (it blocks the next tool call once a budget or limit is reached); these tools only read.`;

/**
 * Builds the server: every tool, its input and output schemas, read-only annotations. The factory
 * it returns makes a server per connection (the HTTP transport asks one per request), all of them
 * sharing the compiled schemas and the kept answers.
 */
export async function serverFactory(ctx: Context, answers: ToolAnswers, profiles: readonly string[] | undefined): Promise<() => McpServerInstance> {
  const { McpServer, fromJsonSchema } = await importExternal<Sdk>('@modelcontextprotocol/server');
  const tools = TOOLS.map((tool) => ({
    tool,
    input: argumentsSchema(inputSchema(tool, profiles)),
    output: fromJsonSchema<Record<string, unknown>>(outputSchema(tool) as never),
  }));
  return () => {
    const server = new McpServer({ name: 'tally', title: 'tally: what an LLM gateway key spends', version: __TALLY_VERSION__ }, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
    for (const { tool, input, output } of tools) {
      server.registerTool(
        tool.name,
        {
          title: tool.title,
          description: `${tool.description} ${DATA_NOTE}`,
          inputSchema: input,
          outputSchema: output,
          annotations: { title: tool.title, readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
        },
        (args, extra) => answers.call(tool, args, extra?.mcpReq?.signal),
      );
    }
    return server;
  };
}

/**
 * The arguments' schema as the SDK takes it: listed as JSON Schema, and every value let through to
 * ToolAnswers, which checks them in the tool's own words (null as not given, the nearest name to
 * a misspelt one) instead of a validator's.
 */
function argumentsSchema(schema: Record<string, unknown>): StandardSchemaWithJSON<Record<string, unknown>, Record<string, unknown>> {
  return {
    '~standard': {
      version: 1 as const,
      vendor: 'tally',
      jsonSchema: { input: () => schema, output: () => schema },
      validate: (value: unknown) => ({ value: value as Record<string, unknown> }),
    },
  };
}

/** The schema of what a tool returns: the one `tally schema` publishes (either of two, where a tool answers with one or the other). */
export function outputSchema(tool: ToolSpec): Record<string, unknown> {
  const names = Array.isArray(tool.schema) ? tool.schema : [tool.schema];
  if (names.length === 1) return bundledSchema(names[0]!);
  const defs: Record<string, unknown> = {};
  for (const name of names) {
    const { $defs, ...schema } = bundledSchema(name);
    Object.assign(defs, $defs, { [`${name}.schema.json`]: schema });
  }
  return { type: 'object', anyOf: names.map((name) => ({ $ref: `https://tally.dev/schemas/${name}.schema.json` })), $defs: defs };
}

/**
 * The schema `tally schema NAME` publishes, with the documents it refers to (status refers to
 * usage) embedded under $defs by their own $id: one compound document a client can resolve alone.
 */
export function bundledSchema(name: string): Record<string, unknown> {
  const read = (file: string) => shippedJson(`schemas/${file}`).document;
  const schema = read(`${name}.schema.json`);
  const text = JSON.stringify(schema);
  const referred = [...new Set([...text.matchAll(/"\$ref":"([\w-]+\.schema\.json)(?:#[^"]*)?"/g)].map((m) => m[1]!))].filter((file) => file !== `${name}.schema.json`);
  if (referred.length === 0) return schema;
  const defs = { ...(schema.$defs as Record<string, unknown> | undefined) };
  for (const file of referred) defs[file] = read(file);
  return { ...schema, $defs: defs };
}

/** Serves over stdin and stdout until the client closes stdin (exit 0), or Ctrl-C (130) / SIGTERM. */
export async function serveOverStdio(ctx: Context, factory: () => McpServerInstance): Promise<void> {
  const [{ serveStdio }, { PROTOCOL_VERSION_META_KEY, parseJSONRPCMessage }, { StdioWire }, { untilStopped }] = await Promise.all([
    importExternal<Stdio>('@modelcontextprotocol/server/stdio'),
    importExternal<Sdk>('@modelcontextprotocol/server'),
    import('./stdio-wire.js'),
    import('../serving.js'),
  ]);
  const wire = new StdioWire(process.stdin, process.stdout, { note: (line) => ctx.warn(line.replace(/^tally mcp: /, '')), parse: parseJSONRPCMessage, versionKey: PROTOCOL_VERSION_META_KEY });
  if (ctx.io.stdinIsTTY) ctx.note('serving MCP on stdio: an agent starts this command itself (e.g. `claude mcp add tally -- tally mcp`, or "command": "tally", "args": ["mcp"] in a client\'s settings); Ctrl-C stops');
  const handle = serveStdio(factory, { transport: wire as never, onerror: (error) => ctx.debug(`mcp: ${error.message}`) });
  // The client closing stdin ends the session once every request it sent is answered.
  await untilStopped(ctx.interrupt, (stop) => void wire.done.then(stop));
  await handle.close().catch(() => undefined);
  // Ctrl-C is an interruption (exit 130), as for every command; the client closing stdin is the end of the work.
  if (ctx.interrupt.aborted && !wire.inputEnded) throw ctx.abortError();
}

/** Serves the Streamable HTTP transport at /mcp on `where` (loopback unless named), the Origin and Host checked against DNS rebinding. */
export async function serveOverHttp(ctx: Context, factory: () => McpServerInstance, where: string): Promise<void> {
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([\w.-]+)):(\d{0,5})$/.exec(where);
  const port = match ? Number(match[3] || 0) : Number.NaN;
  if (!match || port > 65535) {
    const { UsageError } = await import('../errors.js');
    throw new UsageError(`--http "${where}" is not HOST:PORT (e.g. 127.0.0.1:8765, [::1]:8765, or 127.0.0.1: for any free port)`);
  }
  const host = match[1] ?? match[2]!;
  const [{ createMcpHandler }, { createServer }, { Readable }, { guarded, hardenServer, untilStopped }] = await Promise.all([
    importExternal<Sdk>('@modelcontextprotocol/server'),
    importExternal<typeof import('node:http')>('node:http'),
    importExternal<typeof import('node:stream')>('node:stream'),
    import('../serving.js'),
  ]);
  const handler = createMcpHandler(() => factory(), { onerror: (error) => ctx.debug(`mcp: ${error.message}`) });
  let bound = 0;
  const server = createServer(
    guarded(async (req, res) => {
      const refusal = refused(req.headers.origin, req.headers.host, host, bound);
      if (refusal) return void res.writeHead(403, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message: refusal } }));
      const url = new URL(req.url ?? '/', 'http://localhost');
      if (url.pathname !== '/mcp') return void res.writeHead(404, { 'content-type': 'text/plain' }).end('tally serves MCP at /mcp\n');
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value);
      const body = req.method === 'GET' || req.method === 'HEAD' ? undefined : (Readable.toWeb(req) as ReadableStream);
      const response = await handler.fetch(new Request(url, { method: req.method, headers, body, duplex: 'half' } as RequestInit));
      res.writeHead(response.status, Object.fromEntries(response.headers));
      if (response.body) for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) res.write(chunk);
      res.end();
    }, (error) => ctx.debug(`mcp server: ${(error as Error).message}`)),
  );
  hardenServer(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  bound = (server.address() as { port: number }).port;
  ctx.note(`serving MCP (Streamable HTTP) on http://${host.includes(':') ? `[${host}]` : host}:${bound}/mcp${isLoopback(host) ? '' : ' (reachable from other machines)'}; Ctrl-C or SIGTERM stops`);
  await untilStopped(ctx.interrupt);
  await handler.close().catch(() => undefined);
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}

/**
 * Why a request is refused (DNS rebinding): a browser page's Origin must be this server on a
 * loopback name, and so must the Host it was sent to, when the server listens on loopback.
 */
export function refused(origin: string | undefined, hostHeader: string | undefined, boundHost: string, port: number): string | undefined {
  const local = isLoopback(boundHost);
  const hostName = (value: string) => value.replace(/:\d+$/, '');
  if (local && hostHeader !== undefined && !isLoopback(hostName(hostHeader))) return `Host ${JSON.stringify(hostHeader)} is not this loopback server`;
  if (origin === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(origin);
  } catch {
    return 'the Origin header is not an origin';
  }
  const originPort = Number(parsed.port || (parsed.protocol === 'https:' ? 443 : 80));
  const sameHost = local ? isLoopback(parsed.hostname) : parsed.hostname.replace(/^\[(.*)\]$/, '$1') === boundHost.replace(/^\[(.*)\]$/, '$1');
  if (!sameHost || originPort !== port) return `Origin ${JSON.stringify(origin)} is not this server`;
  return undefined;
}
