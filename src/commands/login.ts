// tally login: verify an API key against the balance endpoint, then store it for a profile.
import { type FlagValues, declareFlags } from '../flags/declare.js';
import type { Context } from '../context.js';
import { AuthError, ServiceError, UsageError, isUnreachable } from '../errors.js';
import { cleanSecretInput, maskSecret } from '../domain/secrets.js';
import { emit } from '../output/emit.js';
import { fetchBalance } from '../api/balance.js';
import { parseBaseUrl } from '../settings/base-url.js';

export const flags = declareFlags({
  withToken: { kind: 'switch', help: 'read the API key from standard input' },
  verify: { kind: 'negated', help: 'store the key without checking it against the service' },
  device: { kind: 'switch', help: 'sign in with the OAuth device flow (a device token, balance only)' },
  open: { kind: 'switch', help: 'with --device: open the verification page in a browser' },
  clientId: { kind: 'value', value: 'id', help: 'with --device: OAuth client id (default "tally")' },
});

/** How the credential is had: the device flow (with its page and client id), or a key read and perhaps checked. */
export type LoginRequest = { device: true; open: boolean; clientId: string | undefined } | { device: false; withToken: boolean; verify: boolean };

export function parse(options: FlagValues<typeof flags>): LoginRequest {
  if (options.device) {
    if (options.withToken) throw new UsageError('--with-token reads an API key; --device signs in with a device token instead: give one of them');
    if (options.verify === false) throw new UsageError('--no-verify goes with an API key; a device login is checked by the gateway as it happens');
    return { device: true, open: options.open === true, clientId: options.clientId };
  }
  if (options.open) throw new UsageError('--open goes with --device (it opens the verification page)');
  if (options.clientId !== undefined) throw new UsageError('--client-id goes with --device (the OAuth client of the device flow)');
  return { device: false, withToken: options.withToken === true, verify: options.verify !== false };
}

export async function run(options: LoginRequest, ctx: Context): Promise<void> {
  if (ctx.options.demo) throw new UsageError('--demo never touches stored credentials; run `tally demo` or `tally sandbox` instead');
  const { profile, workspaceFile } = await ctx.profileChoice();
  const store = await ctx.store();
  const stored = store.profile(profile);
  // A folder's .tally.json chose the profile: said before its credential is replaced, since a person typing `tally login` may mean another.
  if (workspaceFile) ctx.note(`${workspaceFile} chooses the profile here: this login ${stored ? 'replaces the credential of' : 'stores'} profile "${profile}" (--profile NAME stores another)`);
  const baseText = ctx.options.baseUrl ?? ctx.env.TALLY_BASE_URL ?? stored?.base_url;
  if (!baseText) throw new UsageError('no base URL: pass --base-url URL (or set TALLY_BASE_URL)');
  const baseUrl = parseBaseUrl(baseText, ctx.options.allowHttp);

  if (options.device) {
    const { deviceLogin } = await import('../loops/device-login.js');
    return deviceLogin(ctx, { profile, baseUrl, store, open: options.open, clientId: options.clientId });
  }

  const key = await readKey(ctx, options.withToken);
  const verify = options.verify;
  if (verify) {
    const client = await ctx.clientFor('login', baseUrl, { kind: 'api-key', secret: key, source: 'flag' });
    try {
      await fetchBalance(client);
    } catch (error) {
      if (error instanceof AuthError) throw new AuthError(`${error.message}; nothing was stored`, { status: error.status });
      // A gateway that cannot be reached now: the key can still be stored, unchecked.
      if (isUnreachable(error)) throw new ServiceError(`${(error as Error).message}; nothing was stored`, { status: (error as ServiceError).status, hint: 'To store the key without checking it against the gateway, add --no-verify.' });
      throw error;
    }
  }
  await store.updateProfile(profile, (current) => {
    const { device_token: _dropped, ...rest } = current;
    return { ...rest, base_url: baseUrl.href.replace(/\/$/, ''), api_key: key };
  });
  // The first profile stored (and no `default` to fall back to) is the one every command uses next.
  const activated = profile !== 'default' && store.activeProfile() === undefined && !store.profile('default') && store.profileNames().length === 1;
  if (activated) await store.setActiveProfile(profile);
  const summary = { profile, base_url: baseUrl.href.replace(/\/$/, ''), credential: 'api-key', key: maskSecret(key), verified: verify, stored_in: store.path, active: activated || store.activeProfile() === profile };
  await emit(ctx, {
    json: summary,
    human: () =>
      `Logged in to ${summary.base_url} as profile "${profile}" with key ${summary.key}${verify ? '' : ' (not verified)'}.\nStored in ${store.path} (mode 0600).\n${activated ? `It is the active profile now: commands use it when --profile names none (\`tally auth switch NAME\` changes that).\n` : ''}`,
  });
}

async function readKey(ctx: Context, fromStdin: boolean): Promise<string> {
  let input: string;
  if (fromStdin) input = await ctx.io.readStdin();
  else if (ctx.io.stdinIsTTY) input = await ctx.io.promptHidden('API key (input hidden): ');
  else throw new UsageError('no terminal to ask for the key: pipe it in with `tally login --with-token`');
  const cleaned = cleanSecretInput(input);
  if (!cleaned.ok) throw new UsageError(`${cleaned.reason}; nothing was stored`);
  ctx.secrets.add(cleaned.secret);
  return cleaned.secret;
}
