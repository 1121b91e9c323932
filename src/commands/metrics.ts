// tally metrics: balance and spend in Prometheus. Prints the text exposition (0.0.4), writes it
// atomically for node_exporter's textfile collector (--textfile PATH), or serves it
// (--serve [HOST:PORT], default 127.0.0.1:9464, /metrics only), asking the gateway at most once
// a minute however often it is scraped. With --all-profiles each profile is a set of series; a
// profile that fails is tally_up 0 and nothing else. It exits 0 whenever it printed.
import { type FlagValues, declareFlags } from '../flags/declare.js';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import type { CommandLine } from '../cli/command.js';
import { isLoopback } from '../domain/loopback.js';
import { exposition } from '../output/prometheus.js';
import { metricsFamilies } from '../output/metrics.js';
import { writeReportFile } from '../settings/report-file.js';
import { type Figures, figuresOf } from '../figures/metrics.js';

/** The gateway is asked at most this often, however often Prometheus scrapes. */
const REFRESH_MS = 60_000;

export const flags = declareFlags({
  textfile: { kind: 'value', value: 'path', help: "write the exposition to this file atomically (node_exporter's textfile collector), not to stdout" },
  serve: { kind: 'optional', value: 'host:port', help: 'serve /metrics (default 127.0.0.1:9464), asking the gateway at most once a minute' },
});

/** The exposition now: this run's profile, or every profile of the fleet. */
async function gather(ctx: Context, fresh: () => Context): Promise<string> {
  if (!ctx.options.allProfiles && ctx.options.profiles === undefined) {
    const run = fresh();
    try {
      return exposition(metricsFamilies([await figuresOf(run, (await run.settings()).profile)]));
    } finally {
      await run.dispose();
    }
  }
  const { acrossProfiles } = await import('../across-profiles.js');
  // figuresOf never fails (a profile that does is tally_up 0): a skipped profile is reported as down too.
  const results = await acrossProfiles(ctx, figuresOf);
  // Where groups are stored (tally group), every series of a profile says its group too.
  const groups = (await ctx.store()).groups();
  return exposition(metricsFamilies(results.map((r): Figures => ('value' in r ? r.value : { profile: r.profile })), groups));
}

/** Where the exposition goes: stdout, a file for node_exporter, or served at HOST:PORT. */
export type MetricsRequest = { to: 'stdout' } | { to: 'textfile'; path: string } | { to: 'serve'; host: string; port: number; where: string };

export function parse(given: FlagValues<typeof flags>, line: CommandLine): MetricsRequest {
  if (line.output.json || line.output.csv) throw new UsageError('tally metrics prints the Prometheus text format; --json and --csv do not apply (tally status --json has the figures as JSON)');
  const textfile = given.textfile;
  if (textfile !== undefined && given.serve !== undefined) throw new UsageError('--textfile and --serve each say where the metrics go; give one of them');
  if (textfile !== undefined) return { to: 'textfile', path: textfile };
  if (given.serve === undefined) return { to: 'stdout' };
  const where = given.serve === true ? '127.0.0.1:9464' : String(given.serve);
  const match = /^(?:\[([0-9a-fA-F:]+)\]|([\w.-]+)):(\d{1,5})$/.exec(where);
  const port = match ? Number(match[3]) : Number.NaN;
  if (!match || port > 65535) throw new UsageError(`--serve "${where}" is not HOST:PORT (e.g. 127.0.0.1:9464, or 0.0.0.0:9464 to be reached from elsewhere)`);
  return { to: 'serve', host: match[1] ?? match[2]!, port, where };
}

export async function run(request: MetricsRequest, ctx: Context): Promise<void> {
  // Each gathering has a context of its own (its own --timeout: a server refreshes for hours).
  const child = () => ctx.child({});
  if (request.to === 'serve') return serveMetrics(ctx, request, child);
  const text = await gather(ctx, child);
  if (request.to === 'textfile') {
    // Read by node_exporter, which runs as another user: 0644 (it holds no secret).
    writeReportFile(request.path, text, { flag: '--textfile', mode: 0o644, scrub: (t) => ctx.secrets.scrub(t) });
    return;
  }
  ctx.io.out(text);
}

async function serveMetrics(ctx: Context, { host, port, where }: { host: string; port: number; where: string }, fresh: () => Context): Promise<void> {
  ctx.runUntilInterrupted();
  let cached: { at: number; text: Promise<string> } | undefined;
  const current = () => {
    // Scrapes within a minute share one answer (and one set of requests in flight).
    if (!cached || Date.now() - cached.at >= REFRESH_MS) {
      const text = gather(ctx, fresh);
      cached = { at: Date.now(), text };
      text.catch(() => (cached = undefined));
    }
    return cached.text;
  };
  const { createServer } = process.getBuiltinModule('node:http');
  const { guarded, hardenServer, requestUrl, untilStopped } = await import('../serving.js');
  // Any request, however malformed, gets a status code; the exporter keeps serving.
  const server = createServer(
    guarded(async (req, res) => {
      const url = requestUrl(req);
      if (!url) return void res.writeHead(400, { 'content-type': 'text/plain' }).end('not a request target\n');
      if (url.pathname !== '/metrics') return void res.writeHead(404, { 'content-type': 'text/plain' }).end('tally serves /metrics only\n');
      if (req.method !== 'GET' && req.method !== 'HEAD') return void res.writeHead(405, { 'content-type': 'text/plain', allow: 'GET, HEAD' }).end('GET /metrics\n');
      try {
        const text = await current();
        res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' }).end(req.method === 'HEAD' ? undefined : text);
      } catch (error) {
        res.writeHead(500, { 'content-type': 'text/plain' }).end(`${ctx.secrets.scrubMessage((error as Error).message)}\n`);
      }
    }, (error) => ctx.debug(`metrics server: ${(error as Error).message}`)),
  );
  hardenServer(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => reject(error.code === 'EADDRINUSE' ? new UsageError(`${where} is already in use; pick another with --serve HOST:PORT`) : error));
    server.listen(port, host, resolve);
  });
  const address = server.address() as { port: number };
  ctx.note(`serving Prometheus metrics on http://${host.includes(':') ? `[${host}]` : host}:${address.port}/metrics${isLoopback(host) ? '' : ' (reachable from other machines)'}; Ctrl-C or SIGTERM stops`);
  // A clean shutdown on SIGTERM (systemd, Kubernetes) as on Ctrl-C.
  await untilStopped(ctx.interrupt);
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}
