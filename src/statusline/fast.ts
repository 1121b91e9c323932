// `tally statusline` from its cache, before the command-line machinery loads: a prompt runs it on
// every line, so a fresh cache is answered in the time it takes to read one small file. Anything
// this path does not recognise (another flag, no cache, a cache for another gateway) goes to the
// full command.
import { workspaceProfile } from '../settings/workspace.js';
import { PROFILE_NAME } from '../settings/profile-name.js';
import { readStateFile } from '../settings/read-file.js';
import { stateDirFor } from '../settings/state-dir.js';
import { AGENT_FORMAT, type CacheKind, DEFAULT_FORMAT, DEFAULT_MAX_AGE, type StatuslineFigures, type StatuslineIdentity, formatStatusline, isFresh, readFigures, releaseRefreshLock, takeRefreshLock } from './cache.js';
import { type AgentSession, readSessions, sessionFromStdin, transcriptStart } from './session.js';
import { runningProxy } from '../settings/proxy-state.js';

/** True when the line was printed from the cache (a stale one also starts a refresh). */
export async function statuslineFromCache(argv: string[], env: NodeJS.ProcessEnv, write: (text: string) => void): Promise<boolean> {
  let format: string | undefined;
  let maxAge = DEFAULT_MAX_AGE;
  let profile = env.TALLY_PROFILE || undefined;
  for (let i = 1; i < argv.length; i++) {
    const [flag, inline] = argv[i]!.split(/=(.*)/s, 2) as [string, string | undefined];
    const value = inline ?? argv[++i];
    if (value === undefined) return false;
    if (flag === '--format') format = value;
    else if (flag === '--max-age' && /^\d{1,9}$/.test(value)) maxAge = Number(value);
    else if (flag === '--profile') profile = value;
    else return false;
  }
  const stateDir = await stateDirFor(env);
  // Inside an agent, the session names its project: its .tally.json chooses the profile, as in a shell there.
  const session = await sessionFromStdin();
  const who = whoRuns(env, stateDir, profile, session);
  if (!who) return false;
  const figures = readFigures(stateDir, who);
  if (!figures) return false;
  write(lineFromCache(stateDir, who, figures, { format, maxAge, now: Date.now(), session }));
  return true;
}

/**
 * The profile, gateway and credential this run would use, chosen as the full command chooses them:
 * --profile or TALLY_PROFILE, else the folder's .tally.json (the session's project inside an agent),
 * else the active profile (tally auth switch), else default. Undefined where the full command must
 * settle it (a .tally.json it cannot use, a name that is none, a credential stored for another origin).
 */
export function whoRuns(env: NodeJS.ProcessEnv, stateDir: string, named: string | undefined, session: AgentSession | undefined): StatuslineIdentity | undefined {
  let profile = named;
  if (profile === undefined) {
    const workspace = workspaceProfile(session?.project ?? process.cwd());
    // A .tally.json that cannot be used: the full command says so (with --check).
    if (workspace && 'error' in workspace) return undefined;
    // One another user owns is passed over, as the full command does.
    profile = workspace && 'profile' in workspace ? workspace.profile : undefined;
  }
  profile ??= activeProfile(stateDir) ?? 'default';
  if (!PROFILE_NAME.test(profile)) return undefined;
  return identityOf(env, profile, stateDir);
}

/** The line for a session on stdin, or without one: the agent's default line unless --format names another. */
export function templateFor(format: string | undefined, session: AgentSession | undefined): string {
  return format ?? (session ? AGENT_FORMAT : DEFAULT_FORMAT);
}

/**
 * The line from cached figures and, with a session, the spend since it began as last fetched;
 * whatever is stale (or not fetched yet) is refreshed in the background.
 */
export function lineFromCache(
  stateDir: string,
  who: StatuslineIdentity,
  figures: StatuslineFigures,
  options: { format: string | undefined; maxAge: number; now: number; session: AgentSession | undefined },
): string {
  const { session, now, maxAge } = options;
  const template = templateFor(options.format, session);
  const fresh = isFresh(figures.fetched_at, now, maxAge);
  const wantsSpend = session?.id !== undefined && (template === AGENT_FORMAT || template.includes('{session}'));
  const spend = wantsSpend ? readSessions(stateDir, who).find((s) => s.id === session.id) : undefined;
  const proxy = runningProxy(stateDir, who);
  const line = formatStatusline(figures, template, !fresh, session && { ...session, ...(spend ? { spend } : {}) }, proxy);
  const sessionStale = wantsSpend && (!spend || !isFresh(spend.fetched_at, now, maxAge));
  if (!fresh || sessionStale) refreshInBackground(stateDir, who, now, wantsSpend ? sessionArgs(session, spend?.started, now) : []);
  return `${line}\n`;
}

/** What a refresh needs to fetch a session's spend: its id and when it began. */
function sessionArgs(session: AgentSession, started: number | undefined, now: number): string[] {
  return ['--session-id', session.id!, '--session-start', String(started ?? sessionStart(session, now))];
}

/** When a session began (Unix seconds): its transcript's first entry, else now (first seen). */
export function sessionStart(session: AgentSession, now: number): number {
  return transcriptStart(session.transcript) ?? Math.floor(now / 1000);
}

/**
 * The gateway and credential this run would use, as the full command resolves them (environment
 * first, then the stored profile); undefined whenever that takes more than a plain reading (a
 * stored credential for another origin, a config that is not a small JSON file), which the full
 * command then settles.
 */
function identityOf(env: NodeJS.ProcessEnv, profile: string, stateDir: string): StatuslineIdentity | undefined {
  const envUrl = env.TALLY_BASE_URL || undefined;
  const envKey = env.TALLY_API_KEY?.trim() || undefined;
  let record: { base_url?: unknown; api_key?: unknown; device_token?: { access_token?: unknown } } | undefined;
  if (!envUrl || !envKey) {
    try {
      const profiles = (JSON.parse(readStateFile(`${stateDir}/config.json`, 4 * 1024 * 1024).toString('utf8')) as { profiles?: Record<string, typeof record> }).profiles;
      record = profiles && Object.hasOwn(profiles, profile) ? profiles[profile] : undefined;
    } catch {
      return undefined;
    }
    if (typeof record !== 'object' || record === null) return undefined;
  }
  const urlText = envUrl ?? record?.base_url;
  const secret = envKey ?? record?.api_key ?? record?.device_token?.access_token;
  if (typeof urlText !== 'string' || typeof secret !== 'string') return undefined;
  try {
    const baseUrl = new URL(urlText);
    // A stored credential belongs to the origin it was stored for.
    if (!envKey && envUrl && new URL(String(record?.base_url)).origin !== baseUrl.origin) return undefined;
    return { profile, baseUrl, secret };
  } catch {
    return undefined;
  }
}

/** The active profile config.json names, while it is stored; undefined otherwise (or when it cannot be read plainly). */
function activeProfile(stateDir: string): string | undefined {
  try {
    const config = JSON.parse(readStateFile(`${stateDir}/config.json`, 4 * 1024 * 1024).toString('utf8')) as { active?: unknown; profiles?: Record<string, unknown> };
    return typeof config.active === 'string' && config.profiles && Object.hasOwn(config.profiles, config.active) ? config.active : undefined;
  } catch {
    return undefined;
  }
}

/**
 * What runs this program again, after the executable: as a single executable, nothing (the
 * executable is the program; its argv[1] repeats its own path, and its Node options are its own);
 * under Node, the same Node options (a preloaded module, a heap size) and the script.
 */
function thisProgram(): string[] | undefined {
  let sea = false;
  try {
    sea = (process.getBuiltinModule('node:sea') as { isSea?: () => boolean } | undefined)?.isSea?.() === true;
  } catch {
    // A Node without node:sea runs no single executable.
  }
  if (sea) return [];
  const bin = process.argv[1];
  return bin ? [...process.execArgv, bin] : undefined;
}

/** Starts `tally statusline --refresh` (or `tally guard --refresh`) detached, at most one at a time, and does not wait for it. */
export function refreshInBackground(stateDir: string, who: StatuslineIdentity, now: number, extra: string[] = [], kind: CacheKind = 'statusline'): void {
  const program = thisProgram();
  if (!program || !takeRefreshLock(stateDir, who, now, kind)) return;
  try {
    // node:child_process costs a few ms to load: only a stale cache needs it.
    const { spawn } = process.getBuiltinModule('node:child_process');
    const child = spawn(process.execPath, [...program, '--profile', who.profile, kind, '--refresh', ...extra], { detached: true, stdio: 'ignore', env: { ...process.env, TALLY_CONFIG_DIR: stateDir } });
    child.on('error', () => releaseRefreshLock(stateDir, who, kind));
    child.unref();
  } catch {
    // A prompt never shows an error: the next run tries again.
    releaseRefreshLock(stateDir, who, kind);
  }
}
