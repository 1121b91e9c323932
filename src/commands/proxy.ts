// tally proxy: a spending firewall on a loopback address in front of the profile's gateway. Clients
// (an agent, an SDK) call it with a local token instead of the key; each call's worst case is held
// against the limits before it is forwarded (402 past one), and its usage priced as it comes back.
// Prints TALLY_PROXY_URL=… and TALLY_PROXY_TOKEN_FILE=… first; runs until Ctrl-C or SIGTERM, then
// waits for the calls in flight and says what they cost.
import { type FlagValues, declareFlags } from '../flags/declare.js';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import type { CommandLine } from '../cli/command.js';
import { parseAmount } from '../flags/amount-flags.js';
import { Decimal } from '../domain/money.js';
import { isLoopback } from '../domain/loopback.js';
import path from 'node:path';

export const flags = declareFlags({
  listen: { kind: 'value', value: 'host:port', help: 'the address to serve on (default 127.0.0.1 and a free port; loopback only unless --allow-remote)' },
  allowRemote: { kind: 'switch', help: 'serve on an address that is not loopback (--listen names it)' },
  maxSpend: { kind: 'value', value: 'amount', help: "refuse calls that would take the proxy's spend past this (yuan)" },
  budget: { kind: 'variadic', value: 'name', help: 'refuse calls that would take a stored budget (tally budget set) past its amount' },
  maxSessionSpend: { kind: 'value', value: 'amount', help: "refuse calls that would take one session's spend past this (yuan; a session is what the client names in X-Tally-Session, Claude Code's X-Claude-Code-Session-Id or Codex's session-id)" },
  failClosed: { kind: 'switch', help: 'refuse calls the catalog cannot price (by default they go through, counted at no cost, and said)' },
  tokenFile: { kind: 'value', value: 'file', help: 'write the local token clients present here (0600; default: in the state folder, its path printed)' },
  jsonLog: { kind: 'value', value: 'file', help: 'append one JSON line per call (time, path, model, status, cost; never a body or a key)' },
});

export interface ProxyRequest {
  host: string;
  port: number;
  maxSpend: Decimal | undefined;
  maxSessionSpend: Decimal | undefined;
  budgets: string[];
  failClosed: boolean;
  tokenFile: string | undefined;
  jsonLog: string | undefined;
}

export function parse(options: FlagValues<typeof flags>, line: CommandLine): ProxyRequest {
  if (line.output.json || line.output.jq || line.output.csv) throw new UsageError('tally proxy serves until stopped: it prints its address and token file, and --json-log FILE writes each call as JSON');
  const maxSpend = options.maxSpend === undefined ? undefined : parseAmount(options.maxSpend, '--max-spend');
  const maxSessionSpend = options.maxSessionSpend === undefined ? undefined : parseAmount(options.maxSessionSpend, '--max-session-spend');
  const budgets = [...new Set(options.budget ?? [])];
  if (maxSpend === undefined && maxSessionSpend === undefined && budgets.length === 0) throw new UsageError('name a limit: --max-spend AMOUNT, --max-session-spend AMOUNT or --budget NAME (tally proxy --max-spend 5)');
  const [host, port] = listenAddress(options.listen ?? '127.0.0.1:0');
  if (!isLoopback(host) && !options.allowRemote) throw new UsageError(`--listen ${options.listen} is not a loopback address: the proxy holds the gateway's key for anyone who can reach it; add --allow-remote to serve there anyway`);
  return { host, port, maxSpend, maxSessionSpend, budgets, failClosed: options.failClosed === true, tokenFile: options.tokenFile, jsonLog: options.jsonLog };
}

function listenAddress(text: string): [string, number] {
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([\w.-]+)):(\d{1,5})$/.exec(text);
  const port = match ? Number(match[3]) : Number.NaN;
  if (!match || port > 65535) throw new UsageError(`--listen "${text}" is not HOST:PORT (127.0.0.1:8787; port 0 picks a free one)`);
  return [match[1] ?? match[2]!, port];
}

export async function run(request: ProxyRequest, ctx: Context): Promise<void> {
  const [settings, client] = await Promise.all([ctx.settings(), ctx.client()]);
  if (client.credential?.kind !== 'api-key') throw new UsageError('tally proxy forwards calls with an API key: this profile holds no key (tally login --with-token)');
  const [{ openFirewall }, { writeFileAtomic, ensurePrivateDir, appendToFile }, { formatAmount }] = await Promise.all([import('../proxy/firewall.js'), import('../settings/files.js'), import('../output/money.js')]);
  const money = (amount: Decimal) => formatAmount(amount, 'account', { currency: 'CNY' });
  const limits: import('../proxy/ledger.js').SpendLimit[] = [];
  if (request.maxSpend) limits.push({ name: `--max-spend ${money(request.maxSpend)}`, amount: request.maxSpend, before: new Decimal(0), raise: 'To go on, start tally proxy again with a higher --max-spend.', scope: 'proxy' });
  if (request.maxSessionSpend) limits.push({ name: `--max-session-spend ${money(request.maxSessionSpend)}`, amount: request.maxSessionSpend, before: new Decimal(0), raise: 'To go on, start a new session, or start tally proxy again with a higher --max-session-spend.', scope: 'session' });
  if (request.budgets.length > 0) {
    const { loadBudgets } = await import('../figures/budgets.js');
    for (const b of (await loadBudgets(ctx, request.budgets)).budgets) {
      // A budget the gateway cannot measure cannot be held: said before anything is served.
      if (!b.standing) throw new UsageError(`budget "${b.name}" is not measured (${b.notMeasured ?? 'its spend cannot be read'}): tally proxy cannot hold it`);
      limits.push({ name: `budget "${b.name}" (${money(new Decimal(b.budget.amount))} a ${b.budget.period})`, amount: new Decimal(b.budget.amount), before: b.standing.spent, raise: `To go on, raise it (tally budget set ${b.name} --amount AMOUNT --period ${b.budget.period}) and start tally proxy again.`, scope: 'budget' });
    }
  }
  const who = { profile: settings.profile, baseUrl: client.baseUrl, secret: client.credential.secret };
  const { runningProxy, writeProxyFigures, forgetProxy, proxyFigures } = await import('../settings/proxy-state.js');
  // One ledger per profile and key: a second proxy would hold the same limits without the first one's spend.
  const other = runningProxy(await ctx.stateDir(), who);
  if (other) throw new UsageError(`a tally proxy already runs for profile "${settings.profile}" at ${other.url} (pid ${other.pid}): one proxy holds a profile's limits; point the client at it, or stop it first`);
  const stateDir = await ctx.stateDir();
  const tokenFile = request.tokenFile ?? path.join(stateDir, 'proxy', `token-${settings.profile}`);
  let log: ((entry: Record<string, unknown>) => void) | undefined;
  if (request.jsonLog) {
    log = (entry) => {
      try {
        appendToFile(request.jsonLog!, `${JSON.stringify(entry)}\n`);
      } catch (error) {
        ctx.warn(`--json-log: ${(error as Error).message}`);
      }
    };
  }
  ctx.runUntilInterrupted();
  const firewall = await openFirewall(ctx, client, limits, { host: request.host, port: request.port, failClosed: request.failClosed, say: (text) => ctx.warn(`tally proxy: ${text}`), ...(log ? { log } : {}) });
  if (!request.tokenFile) ensurePrivateDir(path.dirname(tokenFile), { own: true });
  writeFileAtomic(tokenFile, [`${firewall.token}\n`], { mode: 0o600 });
  // Its live figures, for status (and the MCP server): written as the ledger moves, removed at the end.
  const startedAt = new Date(ctx.now()).toISOString();
  let written = '';
  const publish = () => {
    const figures = { pid: process.pid, url: firewall.url, started_at: startedAt, updated_at: new Date(ctx.now()).toISOString(), ...proxyFigures(firewall.ledger, firewall.reconciler.waiting), limits: limits.map((l) => l.name) };
    const key = JSON.stringify({ ...figures, updated_at: '' });
    if (key === written) return;
    written = key;
    writeProxyFigures(stateDir, who, figures);
  };
  publish();
  const publishing = setInterval(publish, 500);
  publishing.unref();
  ctx.io.out(`TALLY_PROXY_URL=${firewall.url}\nTALLY_PROXY_TOKEN_FILE=${tokenFile}\n`);
  ctx.note(`tally proxy: forwarding ${firewall.url}/v1/… to ${client.baseUrl.origin} with this profile's key; clients present the token in ${tokenFile}; ${limits.map((l) => l.name).join(', ')} held before each call. Ctrl-C stops.`);
  const { untilStopped } = await import('../serving.js');
  await untilStopped(ctx.interrupt);
  await firewall.close();
  clearInterval(publishing);
  forgetProxy(stateDir, who, process.pid);
  const l = firewall.ledger;
  ctx.note(`tally proxy: stopped; ${l.calls} calls forwarded: ${money(l.spent)} (${l.bookedCalls} booked by the gateway's log, ${money(l.booked)}; the others estimated from their usage at the catalog's prices)${l.unpriced ? `, ${l.unpriced} not priced` : ''}; ${l.refused} refused`);
  if (ctx.interrupt.aborted) throw ctx.abortError();
}
