// tally sandbox: serve the fake gateway on 127.0.0.1 until interrupted.
import { type FlagValues, declareFlags } from '../flags/declare.js';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { emit } from '../output/emit.js';
import type { Fault, FaultKind, SandboxOptions } from '../sandbox/server.js';
import { FAULT_KINDS } from '../sandbox/faults.js';
import { didYouMean } from '../domain/suggest.js';
import { COMPAT_WRAPS } from '../sandbox/compat.js';
import { parseUtcOffset } from '../domain/offset.js';
import { wholeNumber } from '../flags/flag-values.js';

export const flags = declareFlags({
  port: { kind: 'value', value: 'n', help: 'port on 127.0.0.1 (0 picks a free one)', default: '0' },
  now: { kind: 'value', value: 'iso', help: "the gateway's clock starts at this time (ISO 8601) and runs on; its seeded history ends there" },
  naming: { kind: 'value', value: 'style', help: 'field names inside usage buckets', choices: ['compact', 'detailed', 'iso'], default: 'compact' },
  utcOffset: { kind: 'value', value: '+HH:MM', help: 'offset of the day grid from UTC', default: '+00:00' },
  catalogSize: { kind: 'value', value: 'n', help: 'pad the price catalog with generated models up to n' },
  catalogChurn: { kind: 'switch', help: 'serve a new pricing_version with every catalog request' },
  repriceAfter: { kind: 'value', value: 'n', help: 'serve the previous catalog version to the first n catalog requests, then the current one (a repricing for pricing --diff)' },
  compatWrap: { kind: 'optional', value: 'shape', help: 'how the token-usage record is wrapped: {"code": true, ...} as real gateways send it, {"code": 0, ...}, {"success": true, ...} or bare', choices: COMPAT_WRAPS, default: 'code-true' },
  compatUnits: { kind: 'value', value: 'units', help: 'the token record\'s amounts: credits with a currency, or raw quota units with none (and the unlimited marker), as open-source gateways send them', choices: ['stated', 'raw'], default: 'stated' },
  compatNoToken: { kind: 'switch', help: 'answer 404 on /api/usage/token/, as an older gateway of the family does' },
  callLog: { kind: 'negated', help: 'answer 404 on /v1/open/logs: a gateway without a per-call log' },
  tokenClasses: { kind: 'switch', help: 'report cache-read and reasoning tokens in usage by model and the log (cache reads billed at the cache price)' },
  offCatalog: { kind: 'switch', help: 'charge some calls of the last two weeks off the catalog (one model at another output price, failed calls charged): what tally audit finds' },
  tls: { kind: 'switch', help: 'serve HTTPS (HTTP/2 and HTTP/1.1, the client\'s choice) with a self-signed certificate made for this state folder (prints the TALLY_CA_FILE that trusts it)' },
  http1Only: { kind: 'switch', help: 'with --tls: offer HTTP/1.1 only, as a front end that does not speak HTTP/2' },
  seed: { kind: 'value', value: 'n', help: 'another seeded history of the same world (default 0, the one the README shows)' },
  logLag: { kind: 'value', value: 'seconds', help: 'book each call in the per-call log this many seconds late, as real gateways do (the balance counts it at once)' },
  logSize: { kind: 'value', value: 'n', help: 'serve this many generated log entries (over the last six days) instead of the seeded calls' },
  accountLimit: { kind: 'value', value: 'n', help: 'requests a minute on account endpoints before 429 (default 120, as the spec)' },
  live: { kind: 'optional', value: 'seconds', help: 'make a call every few seconds (default 3) at the seeded mix of models, so the log grows (logs --follow, tally run); POST /v1/chat/completions always spends' },
  fault: { kind: 'list', value: 'kind[:times]', help: 'inject a fault for the first TIMES requests (default 1, or always); repeatable', offers: FAULT_KINDS },
});

/** --fault KIND[:TIMES]: the kinds are a closed set (help and completion offer them); the count after them is not. */
/** The sandbox asked for: its world and faults, its clock's start (ms), whether it speaks TLS. */
export interface SandboxRequest {
  world: Omit<SandboxOptions, 'now' | 'tls'> & { port: number };
  now: number | undefined;
  tls: boolean;
  faults: Fault[];
}

export function parse(options: FlagValues<typeof flags>): SandboxRequest {
  const port = wholeNumber(options.port, '--port', 0, 65535);
  const catalogSize = options.catalogSize === undefined ? undefined : wholeNumber(options.catalogSize, '--catalog-size', 0, 1_000_000);
  const accountLimit = options.accountLimit === undefined ? undefined : wholeNumber(options.accountLimit, '--account-limit', 1);
  const logSize = options.logSize === undefined ? undefined : wholeNumber(options.logSize, '--log-size', 0, 10_000_000);
  const logLagSeconds = options.logLag === undefined ? undefined : wholeNumber(options.logLag, '--log-lag', 0, 3600);
  const repriceAfter = options.repriceAfter === undefined ? undefined : wholeNumber(options.repriceAfter, '--reprice-after', 0, 1_000_000);
  const seed = options.seed === undefined ? undefined : wholeNumber(options.seed, '--seed', 0, 1_000_000);
  const liveEveryMs = options.live === undefined ? undefined : options.live === true ? 3000 : wholeNumber(options.live, '--live', 1, 3600) * 1000;
  const faults = ((options.fault as string[] | undefined) ?? []).map(parseFault);
  const now = options.now === undefined ? undefined : parseNow(String(options.now));
  const world = {
    port,
    naming: options.naming,
    dayOffsetMinutes: parseUtcOffset(String(options.utcOffset)),
    catalogSize,
    catalogChurn: options.catalogChurn === true,
    repriceAfter,
    compatWrap: options.compatWrap === true ? 'code-true' : options.compatWrap,
    compatUnits: options.compatUnits,
    compatNoToken: options.compatNoToken === true,
    noCallLog: options.callLog === false,
    offCatalog: options.offCatalog === true,
    tokenClasses: options.tokenClasses === true,
    http1Only: options.http1Only === true,
    logSize,
    logLagSeconds,
    seed,
    accountLimit,
    liveEveryMs,
  };
  return { world, now, tls: options.tls === true, faults };
}

export async function run(request: SandboxRequest, ctx: Context): Promise<void> {
  if (ctx.options.demo) throw new UsageError('--demo runs a command against an in-process sandbox; `tally sandbox` is the sandbox itself (leave out --demo)');
  const { world: { port, liveEveryMs }, now } = request;
  const { startSandbox, clockStartingAt } = await import('../sandbox/server.js');
  ctx.runUntilInterrupted();
  const tls = request.tls ? await (await import('../sandbox/tls.js')).sandboxTls(await ctx.stateDir()) : undefined;
  const sandbox = await startSandbox({ ...request.world, now: now === undefined ? undefined : clockStartingAt(now), tls }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'EADDRINUSE') throw new UsageError(`port ${port} on 127.0.0.1 is already in use; pick another with --port N (--port 0 takes a free one)`);
    if (error.code === 'EACCES') throw new UsageError(`port ${port} on 127.0.0.1 may not be opened by this user; pick one above 1023 with --port N`);
    throw error;
  });
  sandbox.faults.push(...request.faults);
  ctx.onDispose(() => sandbox.close());
  await emit(ctx, {
    json: {
      base_url: sandbox.baseUrl,
      api_key: sandbox.demoKey,
      limited_api_key: sandbox.limitedKey,
      unlimited_api_key: sandbox.unlimitedKey,
      ca_file: tls?.certFile ?? null,
      keys: sandbox.keys.map((k) => ({ name: k.name, account: k.account, api_key: k.secret, daily_cost_limit: k.dailyCostLimit, total_cost_limit: k.totalCostLimit, groups: k.groups })),
    },
    human: () =>
      `Sandbox gateway on ${sandbox.baseUrl}${now === undefined ? '' : ` (its clock started at ${new Date(now).toISOString()})`}\n\n` +
      `  export TALLY_BASE_URL=${sandbox.baseUrl}\n` +
      `  export TALLY_API_KEY=${sandbox.demoKey}\n` +
      (tls ? `  export TALLY_CA_FILE=${tls.certFile}\n` : '') +
      '\n' +
      'Its world: two accounts, each with several keys (use any as TALLY_API_KEY, or log in a profile per key):\n' +
      sandbox.keys.map((k) => `  ${k.account}  ${k.name.padEnd(10)}  ${k.secret}  ${describeKey(k)}\n`).join('') +
      `Device logins are approved at ${sandbox.baseUrl}/device\n` +
      (liveEveryMs === undefined ? '' : `Live: a call every ${liveEveryMs / 1000} s (the log grows; try \`tally logs --follow\`).\n`) +
      `POST ${sandbox.baseUrl}/v1/chat/completions answers and bills the key that asks (a script that spends).\n` +
      'Press Ctrl-C to stop.\n',
  });
  await new Promise<void>((resolve) => {
    if (ctx.interrupt.aborted) resolve();
    ctx.interrupt.addEventListener('abort', () => resolve(), { once: true });
  });
  throw ctx.abortError();
}

const trimZeros = (amount: string) => amount.replace(/\.?0+$/, '');

function describeKey(key: { dailyCostLimit: string | null; totalCostLimit: string | null; groups: string[] }): string {
  const parts = [
    key.dailyCostLimit ? `daily limit ¥${trimZeros(key.dailyCostLimit)}` : 'no daily limit',
    key.totalCostLimit ? `quota ¥${trimZeros(key.totalCostLimit)}` : 'no quota',
  ];
  if (key.groups.length < 4) parts.push(`groups ${key.groups.join(',')}`);
  return parts.join(', ');
}

/** --now: an ISO 8601 date or date-time (UTC unless it says otherwise), as milliseconds. */
function parseNow(text: string): number {
  const iso = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,3})?)?)?(?:Z|[+-]\d{2}:?\d{2})?$/;
  const ms = iso.test(text) ? Date.parse(/[zZ]|[+-]\d{2}:?\d{2}$/.test(text) || text.length === 10 ? text : `${text}Z`) : Number.NaN;
  if (!Number.isFinite(ms) || ms < Date.UTC(2000, 0, 1) || ms >= Date.UTC(2100, 0, 1)) {
    throw new UsageError(`--now "${text}" is not a time between 2000 and 2099 in ISO 8601 (e.g. 2026-11-22T10:00:00Z)`);
  }
  return ms;
}

function parseFault(text: string): Fault {
  const [kind, times] = text.split(':');
  if (!FAULT_KINDS.includes(kind as FaultKind)) {
    const hint = didYouMean(kind ?? '', FAULT_KINDS);
    throw new UsageError(`--fault "${text}": unknown kind (one of ${FAULT_KINDS.join(', ')})`, hint ? { hint } : {});
  }
  const count = times === undefined ? 1 : times === 'always' ? Number.POSITIVE_INFINITY : Number(times);
  if (!(count > 0)) throw new UsageError(`--fault "${text}": times must be a positive number or "always"`);
  return { kind: kind as FaultKind, times: count };
}
