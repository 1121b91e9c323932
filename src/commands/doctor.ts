// tally doctor: a checklist a user can paste into a bug report. One PASS/WARN/FAIL line per check;
// exit 0 when nothing fails, 1 otherwise. Nothing secret is shown (the key is masked).
import { statSync } from 'node:fs';
import type { Command } from 'commander';
import type { Context } from '../context.js';
import { type NoRequest, noRequest } from '../cli/command.js';
import { ServiceError, TallyError } from '../errors.js';
import { maskSecret } from '../domain/secrets.js';
import { isLoopback } from '../domain/loopback.js';
import { emit } from '../output/emit.js';
import { escapeControl } from '../output/escape.js';
import type { ResolvedSettings } from '../settings/resolve.js';
import { parseBaseUrl } from '../settings/base-url.js';

type Level = 'pass' | 'warn' | 'fail';

interface Check {
  name: string;
  level: Level;
  detail: string;
}

/** The Node.js the package declares (package.json engines). */
const NODE_REQUIRED = [20, 18, 1] as const;
/** A clock further off than this shifts windows and days. */
const SKEW_LIMIT_S = 60;

export function configure(command: Command): void {
  command.description('a checklist for bug reports: Node, files, settings, network, clock, credential, limits');
}

export const parse = noRequest;

export async function run(_request: NoRequest, ctx: Context): Promise<void> {
  const checks: Check[] = [];
  const add = (name: string, level: Level, detail: string) => checks.push({ name, level, detail });

  const version = process.versions.node.split('.').map(Number);
  const newEnough = version[0]! > NODE_REQUIRED[0] || (version[0] === NODE_REQUIRED[0] && (version[1]! > NODE_REQUIRED[1] || (version[1] === NODE_REQUIRED[1] && version[2]! >= NODE_REQUIRED[2])));
  add('tally', 'pass', `${typeof __TALLY_VERSION__ === 'string' ? __TALLY_VERSION__ : 'dev'} on ${process.platform} ${process.arch}`);
  add('node', newEnough ? 'pass' : 'fail', `Node.js ${process.versions.node}${newEnough ? '' : `; tally needs ${NODE_REQUIRED.join('.')} or newer`}`);

  const stateDir = await ctx.stateDir();
  checkFiles(ctx, stateDir, add);
  // The file itself, read as every command reads it (the settings in force may not need it).
  try {
    (await ctx.store()).profileNames();
  } catch (error) {
    if (!(error instanceof TallyError)) throw error;
    add('config.json', 'fail', error.message);
  }

  let settings: ResolvedSettings | undefined;
  try {
    settings = await ctx.settings();
  } catch (error) {
    if (!(error instanceof TallyError)) throw error;
    add('settings', 'fail', error.message);
    // The other checks still run, on what the environment gives (a broken config.json aside).
    settings = environmentOnly(ctx);
  }
  if (settings) await checkGateway(ctx, settings, add);

  await checkCatalogCache(ctx, settings, add);

  const ok = checks.every((c) => c.level !== 'fail');
  await emit(ctx, {
    json: { ok, checks },
    human: async () => (await import('../output/check-report.js')).renderLevelLines(checks.map((c) => ({ level: c.level, name: c.name, text: c.detail })), ctx),
  });
  if (!ok) throw new ServiceError(`${checks.filter((c) => c.level === 'fail').length} of ${checks.length} checks failed`);
}

const ENVIRONMENT_ONLY = '(environment only)';

/** The settings the environment alone gives (TALLY_BASE_URL, TALLY_API_KEY), when the profile cannot be read. */
function environmentOnly(ctx: Context): ResolvedSettings | undefined {
  const url = ctx.options.baseUrl ?? ctx.env.TALLY_BASE_URL;
  if (!url) return undefined;
  try {
    const key = ctx.env.TALLY_API_KEY?.trim();
    return {
      profile: ENVIRONMENT_ONLY,
      profileSource: 'env',
      baseUrl: parseBaseUrl(url, ctx.options.allowHttp),
      baseUrlSource: ctx.options.baseUrl ? 'flag' : 'env',
      credential: key ? { kind: 'api-key', secret: key, source: 'env' } : undefined,
      record: undefined,
    };
  } catch {
    return undefined;
  }
}

function checkFiles(ctx: Context, stateDir: string, add: (name: string, level: Level, detail: string) => void): void {
  let dir;
  try {
    dir = statSync(stateDir);
  } catch {
    add('state folder', 'pass', `${stateDir} (not created yet: nothing stored)`);
    return;
  }
  const mode = (dir.mode & 0o7777).toString(8).padStart(4, '0');
  if (!dir.isDirectory()) {
    add('state folder', 'fail', `${stateDir} is not a folder`);
    return;
  }
  add('state folder', dir.mode & 0o022 ? 'warn' : 'pass', `${stateDir} (mode ${mode}${dir.mode & 0o022 ? '; others can write to it' : ''})${ctx.env.TALLY_CONFIG_DIR ? ', from TALLY_CONFIG_DIR' : ''}`);
  try {
    const file = statSync(`${stateDir}/config.json`);
    const fileMode = (file.mode & 0o777).toString(8).padStart(4, '0');
    add('config.json', file.mode & 0o077 ? 'warn' : 'pass', `mode ${fileMode}${file.mode & 0o077 ? '; readable by others: run `chmod 600` on it' : ''}`);
  } catch {
    add('config.json', 'pass', 'none yet (no profile stored)');
  }
}

async function checkGateway(ctx: Context, settings: ResolvedSettings, add: (name: string, level: Level, detail: string) => void): Promise<void> {
  const source = (s: string | undefined) => (s === 'env' ? 'environment' : s === 'flag' ? 'flag' : s === 'profile' ? 'profile' : s ?? 'default');
  add('profile', 'pass', `${settings.profile} (${source(settings.profileSource)})`);
  const stored = Object.entries(settings.record ?? {}).filter(([key]) => !['base_url', 'api_key', 'device_token'].includes(key));
  // A setting that is a set of named things (budgets, notify destinations) is shown by its names, never its values (a destination's URL is a secret).
  const shown = (value: unknown) => (value !== null && typeof value === 'object' ? Object.keys(value).sort().join('|') || 'none' : String(value));
  if (stored.length) add('settings', 'pass', stored.map(([key, value]) => `${key}=${shown(value)}`).join(', ') + ' (profile)');
  if (!settings.baseUrl) {
    add('base URL', 'fail', 'none: pass --base-url, set TALLY_BASE_URL, or run `tally login --base-url URL`');
    return;
  }
  add('base URL', 'pass', `${settings.baseUrl.href.replace(/\/$/, '')} (${source(settings.baseUrlSource)})`);
  const credential = settings.credential;
  add('credential', credential ? 'pass' : 'fail', credential ? `${credential.kind === 'api-key' ? 'API key' : 'device token'} ${maskSecret(credential.secret)} (${source(credential.source)})` : 'none: run `tally login` or set TALLY_API_KEY');

  const proxy = ctx.env.HTTPS_PROXY ?? ctx.env.https_proxy ?? ctx.env.HTTP_PROXY ?? ctx.env.http_proxy;
  const { probeReach, probeBalance } = await import('../api/probe.js');
  const direct = !proxy || isLoopback(settings.baseUrl.hostname);
  if (proxy) add('proxy', 'pass', direct ? `${redactUrl(proxy)} (not used for a loopback host)` : `${redactUrl(proxy)}${ctx.env.NO_PROXY ? `, NO_PROXY=${ctx.env.NO_PROXY}` : ''}`);
  if (direct) {
    const { readCaFile } = await import('../api/transport.js');
    let ca: string | undefined;
    try {
      ca = readCaFile(ctx.env);
      if (ca) add('ca file', 'pass', `TALLY_CA_FILE ${escapeControl(ctx.env.TALLY_CA_FILE ?? '')}: its authorities are trusted beside the system's`);
    } catch (error) {
      add('ca file', 'fail', (error as Error).message);
    }
    const reach = await probeReach(settings.baseUrl, Math.min(ctx.options.timeout, 10) * 1000, ca);
    if (reach.dns) add('dns', 'pass', reach.dns);
    if (reach.tcp) add('tcp', 'pass', reach.tcp);
    if (reach.tls) add('tls', 'pass', reach.tls);
    if (reach.failed) {
      add(reach.failed.step, 'fail', reach.failed.message);
      return;
    }
  }
  if (!credential) return;
  try {
    // From the environment alone (the profile unreadable): a client for exactly that.
    const client = settings.profile === ENVIRONMENT_ONLY ? await ctx.clientFor('doctor', settings.baseUrl, credential) : await ctx.client();
    const answer = await probeBalance(client);
    add('gateway', 'pass', `the balance endpoint answered HTTP ${answer.status}; the credential is accepted`);
    const date = Date.parse(answer.headers.date ?? '');
    if (Number.isFinite(date)) {
      const skew = Math.round((ctx.now() - date) / 1000);
      // A Date header counts whole seconds: a second either way is in step.
      add('clock', Math.abs(skew) > SKEW_LIMIT_S ? 'warn' : 'pass', `${Math.abs(skew) <= 1 ? 'in step with' : `${Math.abs(skew)} s ${skew > 0 ? 'ahead of' : 'behind'}`} the gateway's clock${Math.abs(skew) > SKEW_LIMIT_S ? ': windows and "today" depend on it' : ''}`);
    } else add('clock', 'warn', 'the gateway sent no Date header to compare with');
    const limit = Number(answer.headers['x-ratelimit-limit']);
    const remaining = Number(answer.headers['x-ratelimit-remaining']);
    if (Number.isFinite(limit) && Number.isFinite(remaining) && limit > 0) {
      add('rate limit', remaining <= limit / 10 ? 'warn' : 'pass', `${remaining} of ${limit} requests left in this minute`);
    } else add('rate limit', 'pass', 'the gateway reports no rate-limit headers');
  } catch (error) {
    if (!(error instanceof TallyError) || error.kind === 'interrupted') throw error;
    add('gateway', 'fail', error.message);
  }
}

async function checkCatalogCache(ctx: Context, settings: ResolvedSettings | undefined, add: (name: string, level: Level, detail: string) => void): Promise<void> {
  if (!settings?.baseUrl || ctx.options.demo) return;
  const [{ readCachedCatalogHead }, { describeAge }] = await Promise.all([import('../settings/pricing-cache.js'), import('../domain/words.js')]);
  const cached = readCachedCatalogHead(await ctx.stateDir(), settings.baseUrl);
  if (!cached) add('price catalog', 'pass', 'not cached yet (`tally pricing` fetches it)');
  else add('price catalog', 'pass', `version ${escapeControl(cached.pricingVersion ?? '(none)')}, fetched ${describeAge(ctx.now() - cached.fetchedAt)}`);
}

/** A proxy URL without its user name, password or query values (a `?token=` is as secret as a password). */
function redactUrl(text: string): string {
  try {
    const url = new URL(text);
    if (url.username) url.username = '****';
    if (url.password) url.password = '****';
    for (const name of [...url.searchParams.keys()]) url.searchParams.set(name, '****');
    url.hash = '';
    return url.href;
  } catch {
    return '(not a URL)';
  }
}
