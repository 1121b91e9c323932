// tally login --device: the OAuth 2.0 Device Authorization Grant (RFC 8628).
import { spawn } from 'node:child_process';
import type { Context } from '../context.js';
import { maskSecret } from '../domain/secrets.js';
import { emit } from '../output/emit.js';
import { escapeControl } from '../output/escape.js';
import { type DeviceAuthorization, oauthEndpoints, pollForToken, requestDeviceCode } from '../api/oauth.js';
import type { SettingsStore } from '../settings/store.js';

export interface DeviceLoginInput {
  profile: string;
  baseUrl: URL;
  store: SettingsStore;
  open: boolean;
  clientId: string | undefined;
}

export async function deviceLogin(ctx: Context, input: DeviceLoginInput): Promise<void> {
  const record = input.store.profile(input.profile);
  const endpoints = oauthEndpoints(input.baseUrl, record, input.clientId);
  const client = await ctx.clientFor('oauth', input.baseUrl, undefined);
  const authorization = await requestDeviceCode(client, endpoints);
  showInstructions(ctx, authorization);
  if (input.open) openBrowser(ctx, authorization.verificationUriComplete ?? authorization.verificationUri);

  // Without --timeout the wait for approval lasts as long as the code does (each request still
  // bounded by the default); an explicit --timeout bounds the whole login, wait included.
  const bounded = ctx.options.timeoutGiven === true;
  ctx.progress('waiting for approval in the browser… (Ctrl-C to stop)');
  const token = await pollForToken(
    async () => {
      if (!bounded) ctx.renewDeadline();
      return ctx.clientFor('oauth', input.baseUrl, undefined);
    },
    endpoints,
    authorization,
    {
      now: ctx.now,
      sleep: (ms) => ctx.sleep(ms, bounded ? ctx.signal : ctx.interrupt).catch((error: unknown) => {
        throw ctx.signal.aborted ? ctx.abortError() : error;
      }),
      onWait: (seconds, reason) => {
        ctx.debug(`device login: ${reason}; next poll in ${seconds}s`);
        ctx.progress(`waiting for approval in the browser… (${reason}; Ctrl-C to stop)`);
      },
    },
  ).finally(() => ctx.progress(undefined));
  for (const secret of [token.access_token, token.refresh_token]) ctx.secrets.add(secret);

  await input.store.updateProfile(input.profile, (current) => {
    const { api_key: _key, ...rest } = current;
    return { ...rest, base_url: input.baseUrl.href.replace(/\/$/, ''), device_token: token };
  });
  const summary = {
    profile: input.profile,
    base_url: input.baseUrl.href.replace(/\/$/, ''),
    credential: 'device-token',
    token: maskSecret(token.access_token),
    expires_at: token.expires_at ?? null,
    refreshable: token.refresh_token !== undefined,
    stored_in: input.store.path,
  };
  await emit(ctx, {
    json: summary,
    // Sentences wrap at the terminal's width (a URL of the gateway stays whole on its line).
    human: async () => {
      const [{ fitLines }, { styleFor }] = await Promise.all([import('../output/wrap.js'), import('../output/style.js')]);
      const text =
        `Signed in to ${summary.base_url} as profile "${input.profile}" with a device token (${summary.token})` +
        `${token.expires_at ? `, valid until ${token.expires_at}` : ''}.\n` +
        'A device token works for `tally balance` (and balance checks) only; other commands need an API key (`tally login --with-token`).';
      return `${await fitLines(text, (await styleFor(ctx)).width)}\n`;
    },
  });
}

function showInstructions(ctx: Context, authorization: DeviceAuthorization): void {
  const lines = [
    '',
    `  Open:        ${escapeControl(authorization.verificationUri)}`,
    `  Enter code:  ${escapeControl(authorization.userCode)}`,
  ];
  if (authorization.verificationUriComplete) lines.push(`  Or open:     ${escapeControl(authorization.verificationUriComplete)}`);
  lines.push(`  (the code expires in ${Math.round(authorization.expiresIn / 60)} min; Ctrl-C cancels)`, '');
  ctx.io.err(`${lines.join('\n')}\n`);
}

function openBrowser(ctx: Context, url: string): void {
  if (!/^https?:\/\//.test(url)) return ctx.warn(`not opening "${escapeControl(url)}": not an http(s) URL`);
  const command = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open';
  try {
    const child = spawn(command, [url], { stdio: 'ignore', detached: true });
    child.on('error', () => ctx.warn(`could not start ${command}; open the address above yourself`));
    child.unref();
  } catch {
    ctx.warn(`could not start ${command}; open the address above yourself`);
  }
}
