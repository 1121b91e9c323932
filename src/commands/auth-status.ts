// tally auth status: which base URL and credential a command would use, and where they come from.
import type { Command } from 'commander';
import type { Context } from '../context.js';
import { AuthError } from '../errors.js';
import { maskSecret } from '../domain/secrets.js';
import { emit } from '../output/emit.js';
import type { Source } from '../settings/resolve.js';

export function configure(command: Command): void {
  command.description('show base URL, credential kind and source, masked key');
}

const SOURCE: Record<Source, string> = {
  flag: 'flag',
  env: 'environment',
  profile: 'stored profile',
  default: 'default',
  demo: 'demo sandbox',
};

export async function run(_options: Record<string, unknown>, ctx: Context): Promise<void> {
  const settings = await ctx.settings();
  const credential = settings.credential;
  const expires = credential?.device?.expires_at;
  const expired = expires !== undefined && Date.parse(expires) <= ctx.now();
  const status = {
    profile: settings.profile,
    profile_source: SOURCE[settings.profileSource],
    base_url: settings.baseUrl?.href.replace(/\/$/, '') ?? null,
    base_url_source: settings.baseUrlSource ? describeSource(settings.baseUrlSource, 'TALLY_BASE_URL') : null,
    credential: credential?.kind ?? null,
    credential_source: credential ? describeSource(credential.source, 'TALLY_API_KEY') : null,
    key: credential ? maskSecret(credential.secret) : null,
    ...(credential?.kind === 'device-token'
      ? { expires_at: expires ?? null, expired, refreshable: Boolean(credential.device?.refresh_token) }
      : {}),
  };
  await emit(ctx, {
    json: status,
    human: async () => {
      const [{ renderPanel }, { styleFor }] = await Promise.all([import('../output/table.js'), import('../output/style.js')]);
      const rows: [string, string][] = [
        ['Profile', `${status.profile} (${status.profile_source})`],
        ['Base URL', status.base_url ? `${status.base_url} (${status.base_url_source})` : 'not set'],
      ];
      if (!credential) rows.push(['Credential', 'none: run `tally login` or set TALLY_API_KEY']);
      else {
        rows.push(['Credential', `${credential.kind === 'api-key' ? 'API key' : 'device token (balance only)'} from ${status.credential_source}`]);
        rows.push([credential.kind === 'api-key' ? 'Key' : 'Token', status.key!]);
        if (credential.kind === 'device-token') {
          rows.push(['Expires', expires ? `${expires}${expired ? ' (expired)' : ''}` : 'not given']);
        }
      }
      return renderPanel(rows, await styleFor(ctx));
    },
  });
  if (!credential) throw new AuthError(`not logged in (profile "${settings.profile}")`);
}

function describeSource(source: Source, variable: string): string {
  return source === 'env' ? `environment (${variable})` : SOURCE[source];
}
