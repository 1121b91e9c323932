// Profiles and their credentials, kept by conf in one 0600 file under the state folder.
import { chmodSync, existsSync, lstatSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../errors.js';
import { ensurePrivateDir, withLockFile, writeError } from './files.js';
import { readStateFile } from './read-file.js';
import { PROFILE_NAME } from './profile-name.js';
import { importExternal } from '../external.js';

export interface DeviceToken {
  access_token: string;
  refresh_token?: string;
  /** ISO-8601 instant after which the access token is no longer valid. */
  expires_at?: string;
  token_type?: string;
}

export interface ProfileRecord {
  base_url?: string;
  api_key?: string;
  device_token?: DeviceToken;
  /** Device-flow endpoints, when the service puts them somewhere other than /oauth/. */
  device_code_url?: string;
  token_url?: string;
  client_id?: string;
  /** Pricing cache lifetime in seconds. */
  pricing_ttl?: number;
  /** The gateway's day grid and the zone of times, as --utc-offset takes it. */
  utc_offset?: string;
  /** A display currency (ISO 4217) and where its rate is asked. */
  currency?: string;
  rate_source?: string;
  /** Budgets by name (`tally budget set`). */
  budgets?: Record<string, import('../domain/budget.js').StoredBudget>;
  /** Where alerts go, by name (`tally notify add`): each destination URL is a secret. */
  notify?: Record<string, { kind: import('../domain/notify-kinds.js').NotifyKind; url: string; secret?: string }>;
}

type Profiles = Record<string, ProfileRecord>;

const CONFIG_NAME = 'config';
/** config.json holds settings and credentials of a few profiles: kilobytes. */
const MAX_CONFIG_BYTES = 4 * 1024 * 1024;

export class SettingsStore {
  readonly dir: string;
  readonly path: string;
  #conf?: import('conf').default<{ profiles: Profiles }>;

  private constructor(dir: string) {
    this.dir = dir;
    this.path = join(dir, `${CONFIG_NAME}.json`);
  }

  /** Opens the store; a corrupt file is reported (on first read) and left exactly as it is. */
  static async open(dir: string): Promise<SettingsStore> {
    return new SettingsStore(dir);
  }

  profileNames(): string[] {
    return Object.keys(this.#profiles());
  }

  /** The profile `tally auth switch` made active, while it is stored (else none: `default` is used). */
  activeProfile(): string | undefined {
    const active = (this.#data() as { active?: unknown }).active;
    if (typeof active !== 'string' || !PROFILE_NAME.test(active)) return undefined;
    return Object.hasOwn(this.#profiles(), active) ? active : undefined;
  }

  /** Makes a stored profile the active one (used when neither --profile nor TALLY_PROFILE names one). */
  async setActiveProfile(name: string): Promise<void> {
    this.#refuseSymlink();
    const conf = await this.#writer();
    await withLockFile(join(this.dir, `${CONFIG_NAME}.lock`), async () => {
      this.#refuseSymlink();
      try {
        conf.set('active' as never, name as never);
        if ((statSync(this.path).mode & 0o777) !== 0o600) chmodSync(this.path, 0o600);
      } catch (error) {
        throw writeError(this.path, error);
      }
    });
  }

  /** The stored groups of profiles (`tally group set`), each checked; a group that breaks a rule is left out. */
  groups(): Record<string, string[]> {
    const stored = (this.#data() as { groups?: unknown }).groups;
    if (typeof stored !== 'object' || stored === null || Array.isArray(stored)) return {};
    const groups: Record<string, string[]> = {};
    for (const [name, profiles] of Object.entries(stored as Record<string, unknown>)) {
      if (/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/.test(name) && Array.isArray(profiles) && profiles.every((p) => typeof p === 'string' && PROFILE_NAME.test(p))) groups[name] = profiles as string[];
    }
    return groups;
  }

  /** Read-modify-write of the groups under the config's lock. */
  async updateGroups(change: (current: Record<string, string[]>) => Record<string, string[]>): Promise<void> {
    this.#refuseSymlink();
    const conf = await this.#writer();
    await withLockFile(join(this.dir, `${CONFIG_NAME}.lock`), async () => {
      this.#refuseSymlink();
      const next = change(this.groups());
      try {
        if (Object.keys(next).length) conf.set('groups' as never, next as never);
        else conf.delete('groups' as never);
        if ((statSync(this.path).mode & 0o777) !== 0o600) chmodSync(this.path, 0o600);
      } catch (error) {
        throw writeError(this.path, error);
      }
    });
  }

  profile(name: string): ProfileRecord | undefined {
    const profiles = this.#profiles();
    return Object.hasOwn(profiles, name) ? profiles[name] : undefined;
  }

  /**
   * Read-modify-write of one profile under a lock, so concurrent logins keep each other's work.
   * A symbolic link in place of config.json is refused (conf would write through it); a write
   * that fails (a full disk, a read-only folder) says so in words and leaves the old file.
   */
  async updateProfile(name: string, change: (current: ProfileRecord) => ProfileRecord | undefined | Promise<ProfileRecord | undefined>): Promise<void> {
    this.#refuseSymlink();
    const conf = await this.#writer();
    await withLockFile(join(this.dir, `${CONFIG_NAME}.lock`), async () => {
      this.#refuseSymlink();
      const profiles = { ...this.#profiles() };
      // The profile as it is on disk now, under the lock (another run may have just changed it).
      const next = await change({ ...(Object.hasOwn(profiles, name) ? profiles[name] : {}) });
      if (next === undefined) delete profiles[name];
      else profiles[name] = next;
      try {
        conf.set('profiles', profiles);
        // conf writes with mode 0600 through a fresh file, but an older file may have been wider.
        if ((statSync(this.path).mode & 0o777) !== 0o600) chmodSync(this.path, 0o600);
      } catch (error) {
        throw writeError(this.path, error);
      }
    });
  }

  /**
   * Why the stored credentials may be seen by others, if they may: config.json or its folder
   * readable or writable by the group or everyone (tally makes them 0600 and 0700).
   */
  exposure(): string | undefined {
    try {
      const file = statSync(this.path).mode & 0o777;
      if (file & 0o077) return `${this.path} is readable by others (mode 0${file.toString(8)}); run \`chmod 600 ${this.path}\``;
      const dir = statSync(this.dir).mode & 0o7777;
      // A folder others can write to lets them replace the file; one they can only list is harmless beside a 0600 file.
      if (dir & 0o022) return `the folder ${this.dir} that holds your credentials is writable by others (mode 0${dir.toString(8)}); run \`chmod 700 ${this.dir}\``;
    } catch {
      // No file, no folder: nothing stored to expose.
    }
    return undefined;
  }

  #refuseSymlink(): void {
    try {
      if (lstatSync(this.path).isSymbolicLink()) throw new ConfigError(`refusing to write ${this.path}: it is a symbolic link (tally writes only a file of its own there)`);
    } catch (error) {
      if (error instanceof ConfigError) throw error;
    }
  }

  /**
   * conf writes the file (atomically, 0600). Reading does not need it: the file is plain JSON,
   * and loading conf costs about 30 ms of start-up (ajv, atomically, dot-prop), which every
   * command using a stored profile would pay.
   */
  async #writer(): Promise<import('conf').default<{ profiles: Profiles }>> {
    if (this.#conf) return this.#conf;
    const { default: Conf } = await importExternal<typeof import('conf')>('conf');
    try {
      if (!existsSync(this.dir)) ensurePrivateDir(this.dir);
      this.#conf = new Conf<{ profiles: Profiles }>({
        cwd: this.dir,
        configName: CONFIG_NAME,
        projectName: 'tally',
        // Profile names and URLs contain dots; they are keys, not paths into nested objects.
        accessPropertiesByDotNotation: false,
        // A corrupt file is the user's data: report it, never replace it with an empty one.
        clearInvalidConfig: false,
        // The file holds credentials.
        configFileMode: 0o600,
        watch: false,
      });
      return this.#conf;
    } catch (error) {
      throw this.#unreadable((error as Error).message, error);
    }
  }

  /** The profiles as they are on disk now (read fresh: another process may have written). */
  #profiles(): Profiles {
    const profiles = (this.#data() as { profiles?: unknown }).profiles;
    if (profiles === undefined) return {};
    if (typeof profiles !== 'object' || profiles === null || Array.isArray(profiles)) {
      throw this.#unreadable('"profiles" is not an object');
    }
    return profiles as Profiles;
  }

  /** config.json as it is on disk now. */
  #data(): object {
    let text: string;
    try {
      // Only a regular file of a sane size: a FIFO or a link to a device would hang every run.
      text = readStateFile(this.path, MAX_CONFIG_BYTES).toString('utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw this.#unreadable((error as Error).message, error);
    }
    let data: unknown;
    try {
      // The same reading as conf's: JSON, with an empty file meaning no settings.
      data = text.trim() === '' ? {} : JSON.parse(text);
    } catch (error) {
      throw this.#unreadable((error as Error).message, error);
    }
    if (typeof data !== 'object' || data === null || Array.isArray(data)) throw this.#unreadable('not a JSON object');
    return data;
  }

  #unreadable(reason: string, cause?: unknown): ConfigError {
    return new ConfigError(`config unreadable: ${this.path}; not modified (${reason.split('\n')[0]})`, { cause });
  }
}
