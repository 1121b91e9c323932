// Flag sets that several commands share, declared once so their help reads the same everywhere.
import { LAST_PERIODS, WINDOW_HELP } from '../domain/window.js';
import { declareFlags } from './declare.js';

/**
 * --since/--until/--month/--last/--utc-offset, with help that says what this command's window is.
 * `window` describes the default, e.g. "the last 7 days (today included)".
 */
export function windowFlags(window: string, end = 'the end of the current day') {
  return declareFlags({
    since: { kind: 'value', value: 'time', help: `${WINDOW_HELP.since} (default: ${window})` },
    until: { kind: 'value', value: 'time', help: `${WINDOW_HELP.until} (default: ${end})` },
    month: { kind: 'value', value: 'YYYY-MM', help: WINDOW_HELP.month },
    last: { kind: 'value', value: 'period', help: WINDOW_HELP.last, choices: LAST_PERIODS },
    utcOffset: { kind: 'value', value: '+HH:MM', help: "the gateway's day grid and the zone of times and labels (default: the grid inferred from usage, times in TZ)" },
  });
}
