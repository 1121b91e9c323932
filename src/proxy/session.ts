// Which session a call belongs to, for --max-session-spend: the session id the client sends, by the
// names agents use today (tally's own header first, then Claude Code's, Codex's and the common
// ones), else Claude Code's older place for it (`metadata.user_id`, a JSON text with `session_id`
// or `…_session_<uuid>`). A call that names none belongs to the proxy's one unnamed session.
import type { IncomingHttpHeaders } from 'node:http';

const HEADERS = ['x-tally-session', 'x-claude-code-session-id', 'session-id', 'session_id', 'x-session-id'];

/** A session id as a client may send it: printable, short; anything else is no session id. */
const clean = (value: unknown): string | undefined => (typeof value === 'string' && /^[\x21-\x7e]{1,128}$/.test(value.trim()) ? value.trim() : undefined);

export function sessionOf(headers: IncomingHttpHeaders, body: Record<string, unknown>): string | undefined {
  for (const name of HEADERS) {
    const value = clean(headers[name]);
    if (value) return value;
  }
  const metadata = body.metadata;
  const user = typeof metadata === 'object' && metadata !== null ? (metadata as Record<string, unknown>).user_id : undefined;
  if (typeof user !== 'string') return undefined;
  if (user.startsWith('{')) {
    try {
      return clean((JSON.parse(user) as Record<string, unknown>).session_id);
    } catch {
      return undefined;
    }
  }
  return clean(/_session_([0-9a-f-]{8,64})$/i.exec(user)?.[1]);
}
