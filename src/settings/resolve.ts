// Where each setting comes from: flag, then environment, then the stored profile.
import { AuthError, UsageError } from '../errors.js';
import { originOf, parseBaseUrl } from './base-url.js';
import type { Credential } from '../api/http.js';
import type { DeviceToken, ProfileRecord, SettingsStore } from './store.js';
import { checkStoredProfile } from './profile-rules.js';
import { workspaceProfile } from './workspace.js';
import { PROFILE_NAME } from './profile-name.js';
import { storedNamesHint } from '../domain/suggest.js';

export type Source = 'flag' | 'env' | 'profile' | 'default' | 'demo' | 'active' | 'workspace';

export interface StoredCredential extends Credential {
  source: Source;
  device?: DeviceToken;
}

export interface ResolvedSettings {
  profile: string;
  profileSource: Source;
  baseUrl: URL | undefined;
  baseUrlSource: Source | undefined;
  credential: StoredCredential | undefined;
  record: ProfileRecord | undefined;
}

export interface SettingsInput {
  flags: { profile?: string; baseUrl?: string; allowHttp?: boolean };
  env: NodeJS.ProcessEnv;
  /** Opens the store only when a setting is not given by flag or environment, or a profile is named. */
  openStore: () => Promise<SettingsStore>;
  /** A profile named by --profile or TALLY_PROFILE must be stored (not for `login`, which creates it). */
  mustExist?: boolean;
  /** Where a `.tally.json` is looked for (and above); default the process's folder. */
  cwd?: string;
  /** Says on stderr what was passed over (a `.tally.json` another user owns). */
  warn?: (line: string) => void;
}

export function profileName(input: Pick<SettingsInput, 'flags' | 'env'>): { profile: string; profileSource: Source } {
  if (input.flags.profile) return { profile: checkProfileName(input.flags.profile), profileSource: 'flag' };
  if (input.env.TALLY_PROFILE) return { profile: checkProfileName(input.env.TALLY_PROFILE), profileSource: 'env' };
  return { profile: 'default', profileSource: 'default' };
}

/** The profile a run uses: --profile, TALLY_PROFILE, the project's .tally.json, the active one (`tally auth switch`), else `default`. */
export async function chosenProfile(input: Pick<SettingsInput, 'flags' | 'env' | 'openStore' | 'cwd' | 'warn'>): Promise<{ profile: string; profileSource: Source; workspaceFile?: string }> {
  const named = profileName(input);
  if (named.profileSource !== 'default') return named;
  let workspace = workspaceProfile(input.cwd ?? process.cwd());
  if (workspace && 'error' in workspace) throw new UsageError(workspace.error);
  if (workspace && 'ignored' in workspace) {
    input.warn?.(workspace.ignored);
    workspace = undefined;
  }
  if (workspace) return { profile: checkProfileName(workspace.profile), profileSource: 'workspace', workspaceFile: workspace.file };
  try {
    const active = (await input.openStore()).activeProfile();
    return active === undefined ? named : { profile: active, profileSource: 'active' };
  } catch {
    // An unreadable config is said where its settings are needed; it names no active profile.
    return named;
  }
}

export async function resolveSettings(input: SettingsInput): Promise<ResolvedSettings> {
  const { profile, profileSource, workspaceFile } = await chosenProfile(input);
  const flagUrl = input.flags.baseUrl ?? undefined;
  const envUrl = input.env.TALLY_BASE_URL || undefined;
  const envKey = input.env.TALLY_API_KEY || undefined;

  // A corrupt config must not stop a run that needs nothing from it.
  const named = profileSource !== 'default' && profileSource !== 'active' && profile !== 'default' && input.mustExist !== false;
  const needsStore = !(flagUrl ?? envUrl) || !envKey || named;
  const store = needsStore ? await input.openStore() : undefined;
  // Read back as `config set` and `login` check what they store: an edited file is untrusted input.
  const stored = store?.profile(profile);
  const record = stored === undefined ? undefined : checkStoredProfile(profile, stored, store!.path);
  if (named && !record) {
    const names = store!.profileNames();
    throw new UsageError(`there is no profile "${profile}"${profileSource === 'env' ? ' (named by TALLY_PROFILE)' : workspaceFile ? ` (named by ${workspaceFile})` : ''}`, {
      hint: storedNamesHint(profile, names, 'Stored profiles', `No profile is stored yet: \`tally --profile ${profile} login\` creates it.`),
    });
  }

  let baseUrl: URL | undefined;
  let baseUrlSource: Source | undefined;
  if (flagUrl) [baseUrl, baseUrlSource] = [parseBaseUrl(flagUrl, input.flags.allowHttp), 'flag'];
  else if (envUrl) [baseUrl, baseUrlSource] = [parseBaseUrl(envUrl, input.flags.allowHttp, 'TALLY_BASE_URL'), 'env'];
  else if (record?.base_url) [baseUrl, baseUrlSource] = [parseBaseUrl(record.base_url, input.flags.allowHttp, `base_url of profile "${profile}"`), 'profile'];

  let credential: StoredCredential | undefined;
  if (envKey) credential = { kind: 'api-key', secret: checkEnvKey(envKey), source: 'env' };
  else if (record?.api_key) credential = { kind: 'api-key', secret: record.api_key, source: 'profile' };
  else if (record?.device_token?.access_token) {
    credential = { kind: 'device-token', secret: record.device_token.access_token, source: 'profile', device: record.device_token };
  }
  if (credential?.source === 'profile' && baseUrl && baseUrlSource !== 'profile') refuseForeignOrigin(profile, record!, baseUrl, baseUrlSource);
  return { profile, profileSource, baseUrl, baseUrlSource, credential, record };
}

/**
 * A stored credential goes only to the origin it was stored for (as gh keys credentials by host):
 * a base URL from --base-url or TALLY_BASE_URL on another origin needs a credential of its own.
 */
function refuseForeignOrigin(profile: string, record: ProfileRecord, baseUrl: URL, source: Source | undefined): void {
  const storedOrigin = originOf(record.base_url);
  if (storedOrigin === baseUrl.origin) return;
  const named = source === 'env' ? 'TALLY_BASE_URL' : '--base-url';
  throw new AuthError(
    `the credential of profile "${profile}" was stored for ${storedOrigin ?? 'no recorded origin'}, not ${baseUrl.origin} (${named}); it is sent only to its own origin`,
    { hint: `Set TALLY_API_KEY for ${baseUrl.origin}, or store a profile for it: \`tally --profile NAME login --base-url ${baseUrl.origin}\`.` },
  );
}

/** Names that are not profiles: they belong to every JavaScript object. */
const RESERVED_PROFILE_NAMES = new Set(['__proto__', 'constructor', 'prototype']);

/** What a profile may be called: it never starts with a dash (it would read as a flag). */
export { PROFILE_NAME };

export function checkProfileName(name: string): string {
  if (!PROFILE_NAME.test(name)) {
    throw new UsageError(`profile name "${name}" may only use letters, digits, ".", "_", "-" and "@" (at most 64), and may not start with "-"`);
  }
  if (RESERVED_PROFILE_NAMES.has(name)) throw new UsageError(`profile name "${name}" is reserved; choose another`);
  return name;
}

function checkEnvKey(key: string): string {
  const trimmed = key.trim();
  if (!/^[\x21-\x7e]+$/.test(trimmed)) {
    throw new UsageError('TALLY_API_KEY contains a space, line break or other non-printable character');
  }
  return trimmed;
}

/** The base URL settings resolved to, or a usage error that says how to give one. */
export function requireBaseUrl(settings: ResolvedSettings): URL {
  if (settings.baseUrl) return settings.baseUrl;
  throw new UsageError(
    `no base URL for profile "${settings.profile}": pass --base-url URL, set TALLY_BASE_URL, or run \`tally login --base-url URL\` (try --demo for the built-in sandbox)`,
  );
}
