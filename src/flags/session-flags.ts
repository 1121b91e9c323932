// The flags a background refresh of statusline or guard is started with: the agent's session whose
// spend it fetches (the hook's or status line's stdin named it in the run that started it).
import { UsageError } from '../errors.js';
import { SESSION_ID } from '../statusline/session.js';
import { wholeNumber } from './flag-values.js';

/** The agent's session a background refresh is started with (--session-id, --session-start), checked; undefined when none is named. */
export function namedSession(id: string | undefined, start: unknown): { id: string; start: number } | undefined {
  if (id === undefined) return undefined;
  if (!SESSION_ID.test(id)) throw new UsageError('--session-id is not a session id');
  return { id, start: wholeNumber(start, '--session-start', 0) };
}
