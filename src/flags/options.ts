// Flag sets that several commands share, declared once so their help reads the same everywhere.
import { type Command, Option } from 'commander';
import { LAST_PERIODS, WINDOW_HELP } from '../domain/window.js';

/**
 * Adds --since/--until/--utc-offset, with help that says what this command's window is.
 * `window` describes the default, e.g. "the last 7 days (today included)".
 */
export function addWindowOptions(command: Command, window: string, end = 'the end of the current day'): Command {
  return command
    .option('--since <time>', `${WINDOW_HELP.since} (default: ${window})`)
    .option('--until <time>', `${WINDOW_HELP.until} (default: ${end})`)
    .option('--month <YYYY-MM>', WINDOW_HELP.month)
    .addOption(new Option('--last <period>', WINDOW_HELP.last).choices([...LAST_PERIODS]))
    .option('--utc-offset <+HH:MM>', "the gateway's day grid and the zone of times and labels (default: the grid inferred from usage, times in TZ)");
}
