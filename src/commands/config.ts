// tally config list|get|set|unset: the settings of a profile (--profile), validated as the flags
// are, written through the same store as login (0600, a lock, a rename). Secrets are refused:
// they go in with `tally login`.
import { Argument, type Command } from 'commander';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { emit } from '../output/emit.js';
import { escapeControl } from '../output/escape.js';
import type { Source } from '../settings/resolve.js';
import { originOf } from '../settings/base-url.js';
import { SETTINGS, type SettingKey } from '../settings/profile-rules.js';
import { type CommandLine, type CommandModule, type NoRequest, noRequest } from '../cli/command.js';
import { storedNamesHint } from '../domain/suggest.js';

type Key = SettingKey;
const KEYS = SETTINGS;

const SECRETS = /key|token$|secret|password|credential/i;

function checkKey(text: string): Key {
  // rate-source and rate_source alike (the flags' spelling and the stored one).
  const key = text.replace(/-/g, '_');
  if (Object.hasOwn(KEYS, key)) return key as Key;
  if (SECRETS.test(key)) throw new UsageError(`${key} is a secret: config never stores one; use \`tally login\` (or TALLY_API_KEY)`);
  throw new UsageError(`there is no setting "${key}"`, { hint: `Settings: ${Object.keys(KEYS).join(', ')}.` });
}

interface Entry {
  key: Key;
  value: string | null;
  source: Source | 'unset';
}

/** Every setting of the profile as it applies now, and where it comes from. */
async function effective(ctx: Context): Promise<{ profile: string; entries: Entry[] }> {
  const { profile } = await ctx.profileChoice();
  const record = (await ctx.store()).profile(profile);
  const baseUrl = ctx.options.baseUrl ?? ctx.env.TALLY_BASE_URL ?? record?.base_url;
  const baseSource: Source | 'unset' = ctx.options.baseUrl ? 'flag' : ctx.env.TALLY_BASE_URL ? 'env' : record?.base_url ? 'profile' : 'unset';
  const entries = (Object.keys(KEYS) as Key[]).map((key): Entry => {
    if (key === 'base_url') return { key, value: baseUrl?.replace(/\/$/, '') ?? null, source: baseSource };
    const stored = record?.[key];
    // What config.json holds, as text: an object is written as JSON, never as [object Object].
    if (stored !== undefined) return { key, value: typeof stored === 'string' || typeof stored === 'number' ? String(stored) : JSON.stringify(stored), source: 'profile' };
    const fallback = KEYS[key].fallback(record, baseUrl?.replace(/\/$/, ''));
    return { key, value: fallback ?? null, source: fallback === undefined ? 'unset' : 'default' };
  });
  return { profile, entries };
}

/** The <key> argument: its values are offered by shell completion, and checked by checkKey (which names secrets). */
function keyArgument(): Argument {
  const argument = new Argument('<key>', `one of ${Object.keys(KEYS).join(', ')}`);
  // Not .choices(): commander would refuse `api_key` before checkKey can say it is a secret.
  argument.argChoices = Object.keys(KEYS);
  return argument;
}

const SOURCES: Record<Entry['source'], string> = { flag: 'flag', env: 'environment', profile: 'profile', default: 'default', demo: 'demo', active: 'active profile', workspace: 'project .tally.json', unset: 'not set' };

/** The setting a command names (checked: a known key, never a secret's). */
interface KeyRequest {
  key: Key;
}

const keyRequest = (_flags: Record<string, unknown>, line: CommandLine): KeyRequest => ({ key: checkKey(line.args[0]!) });

/** The setting and the value `set` stores (checked by the run, which knows --allow-http). */
interface SetRequest extends KeyRequest {
  value: string;
}

export const list: CommandModule<NoRequest> = {
  configure(command: Command) {
    command.description("the profile's settings, each with where it comes from");
  },
  parse: noRequest,
  async run(_request, ctx) {
    const { profile, entries } = await effective(ctx);
    await emit(ctx, {
      json: { profile, settings: entries.map((e) => ({ key: e.key, value: e.value, source: SOURCES[e.source] })) },
      human: async () => (await import('../output/settings.js')).renderSettings(profile, entries.map((e) => ({ key: e.key, value: e.value, from: SOURCES[e.source] })), ctx),
    });
  },
};

export const get: CommandModule<KeyRequest> = {
  configure(command: Command) {
    command.addArgument(keyArgument()).description('the value of one setting as it applies now');
  },
  parse: keyRequest,
  async run({ key }, ctx) {
    const entry = (await effective(ctx)).entries.find((e) => e.key === key)!;
    await emit(ctx, { json: { key, value: entry.value, source: SOURCES[entry.source] }, human: () => (entry.value === null ? '' : `${ctx.io.stdoutIsTTY ? escapeControl(entry.value) : entry.value}\n`) });
  },
};

export const set: CommandModule<SetRequest> = {
  configure(command: Command) {
    command.addArgument(keyArgument()).argument('<value>').description('store a setting in the profile (validated as the flags are)');
    // A value may start with a dash (utc_offset -05:00): it is the value, not a flag.
    command.allowUnknownOption();
  },
  parse: (_flags, line) => ({ key: checkKey(line.args[0]!), value: line.args[1]! }),
  async run(request, ctx) {
    if (ctx.options.demo) throw new UsageError('--demo never touches stored settings');
    const { key } = request;
    const value = KEYS[key].parse(request.value, ctx.options.allowHttp);
    const { profile } = await ctx.profileChoice();
    const store = await ctx.store();
    await store.updateProfile(profile, (current) => {
      // A stored credential belongs to its origin: moving the profile elsewhere takes a new login.
      const held = originOf(current.base_url) ?? 'an unrecorded origin';
      if (key === 'base_url' && (current.api_key || current.device_token) && held !== originOf(value)) {
        throw new UsageError(`profile "${profile}" holds a credential for ${held}; it is never sent to another origin`, {
          hint: `Store a key for ${originOf(value)} with \`tally --profile ${profile} login --base-url ${value}\` (it replaces the old one), or use another profile.`,
        });
      }
      return { ...current, [key]: value };
    });
    await emit(ctx, { json: { profile, key, value }, human: () => `Set ${key} = ${value} in profile "${profile}".\n` });
  },
};

export const unset: CommandModule<KeyRequest> = {
  configure(command: Command) {
    command.addArgument(keyArgument()).description('remove a setting from the profile (its default applies again)');
  },
  parse: keyRequest,
  async run({ key }, ctx) {
    if (ctx.options.demo) throw new UsageError('--demo never touches stored settings');
    const { profile } = await ctx.profileChoice();
    const store = await ctx.store();
    if (!store.profile(profile)) {
      const names = store.profileNames();
      throw new UsageError(`there is no profile "${profile}"`, { hint: storedNamesHint(profile, names, 'Stored profiles', 'No profile is stored.') });
    }
    const had = store.profile(profile)?.[key] !== undefined;
    await store.updateProfile(profile, (current) => {
      const { [key]: _removed, ...rest } = current;
      return rest;
    });
    await emit(ctx, { json: { profile, key, removed: had }, human: () => (had ? `Removed ${key} from profile "${profile}".\n` : `Profile "${profile}" had no ${key}.\n`) });
  },
};
