// How `tally auth status` reads: a panel per profile (the base URL and credential it would use
// and where each comes from, the masked key, whether the gateway accepts it), the active one named
// with the reason it is active; and the words for where a setting comes from.
import type { Context } from '../context.js';
import type { ResolvedSettings, Source } from '../settings/resolve.js';

export const SOURCE: Record<Source, string> = {
  flag: 'flag',
  env: 'environment',
  profile: 'stored profile',
  default: 'default',
  demo: 'demo sandbox',
  active: 'active profile (tally auth switch)',
  workspace: "the project's .tally.json",
};

/** Why a profile is the one in use, in the heading's words. */
const ACTIVE_BECAUSE: Partial<Record<Source, string>> = {
  default: 'active',
  active: 'active: tally auth switch chose it',
  flag: 'active: --profile names it',
  env: 'active: TALLY_PROFILE names it',
  workspace: "active: the project's .tally.json names it",
};

export type CheckState = 'accepted' | 'rejected' | 'unreachable' | 'no-credential' | 'no-base-url' | 'skipped';

export interface ProfileStatus {
  profile: string;
  active: boolean;
  base_url: string | null;
  base_url_source: string | null;
  credential: 'api-key' | 'device-token' | null;
  credential_source: string | null;
  key: string | null;
  expires_at?: string | null;
  expired?: boolean;
  refreshable?: boolean;
  check: { state: CheckState; message: string };
}

export function describeSource(source: Source, variable: string): string {
  return source === 'env' ? `environment (${variable})` : SOURCE[source];
}

export async function renderStatuses(statuses: ProfileStatus[], active: ResolvedSettings, ctx: Context): Promise<string> {
  const [{ renderPanel, drawn }, { styleFor }, { escapeControl }] = await Promise.all([import('./table.js'), import('./style.js'), import('./escape.js')]);
  const style = await styleFor(ctx);
  const paint = style.paint;
  const mark: Record<CheckState, (text: string) => string> = {
    accepted: paint.green,
    rejected: paint.red,
    unreachable: paint.red,
    'no-credential': paint.red,
    'no-base-url': paint.red,
    skipped: paint.dim,
  };
  const parts: string[] = [];
  for (const s of statuses) {
    const rows: Parameters<typeof renderPanel>[0] = [
      ['Base URL', s.base_url ? `${s.base_url} (${s.base_url_source})` : 'not set'],
    ];
    if (s.credential === null) rows.push(['Credential', 'none']);
    else {
      rows.push(['Credential', `${s.credential === 'api-key' ? 'API key' : 'device token (balance only)'} from ${s.credential_source}`]);
      rows.push([s.credential === 'api-key' ? 'Key' : 'Token', s.key!]);
      if (s.credential === 'device-token') rows.push(['Expires', s.expires_at ? `${s.expires_at}${s.expired ? ' (expired)' : ''}` : 'not given']);
    }
    rows.push(['Check', drawn(mark[s.check.state](escapeControl(s.check.message)))]);
    const heading = `Profile ${s.profile}${s.active ? ` (${ACTIVE_BECAUSE[active.profileSource] ?? `active, from ${SOURCE[active.profileSource]}`})` : ''}`;
    const panel = await renderPanel(rows, { ...style, width: style.width - 2 });
    parts.push(`${paint.bold(heading)}\n${panel.split('\n').map((line) => (line ? `  ${line}` : line)).join('\n')}`);
  }
  return parts.join('');
}
