// Words for counts, in messages a figure writes (an error, a warning) and in views alike.
import { groupDigits } from './decimal-text.js';

/** `7 days`, `1 hour`, `24 hours`, `1,000 records`. */
export function plural(count: number, noun: string): string {
  return `${groupDigits(String(count))} ${noun}${count === 1 ? '' : 's'}`;
}

/** `23 minutes`, `5 hours`, `12 days`: an age in its largest whole unit. */
export function ageText(ms: number): string {
  const minutes = Math.max(0, Math.round(ms / 60_000));
  if (minutes < 120) return plural(minutes, 'minute');
  const hours = Math.round(minutes / 60);
  return hours < 48 ? plural(hours, 'hour') : plural(Math.round(hours / 24), 'day');
}

/** `just now`, `12 min ago`, `5 h ago`, `3 days ago`: how long ago a thing was fetched, in a line of a table or a note. */
export function describeAge(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  if (minutes < 1) return 'just now';
  if (minutes < 90) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 48) return `${hours} h ago`;
  return `${Math.round(hours / 24)} days ago`;
}

/**
 * A message at most `max` characters long: a longer one (a value of megabytes quoted back) keeps
 * its start and its end, and says how much was left out between them.
 */
export function elided(text: string, max = 2000): string {
  if (text.length <= max) return text;
  const head = Math.floor(max * 0.7);
  const tail = Math.floor(max * 0.2);
  return `${text.slice(0, head)}… (${(text.length - head - tail).toLocaleString('en-US')} characters left out) …${text.slice(text.length - tail)}`;
}
