// What each kind of destination receives: one payload builder per kind. The message never holds
// a credential (the caller scrubs it); Slack's control characters are escaped.
import type { AlertLevel } from '../domain/alerts.js';
import { type NotifyKind, isTextKind } from '../domain/notify-kinds.js';

export { NOTIFY_KINDS, type NotifyKind, isTextKind } from '../domain/notify-kinds.js';

export interface Alert {
  profile: string;
  /** The check's name (`budget:monthly`, `min-balance`, or `test`). */
  check: string;
  level: AlertLevel;
  actual: string | null;
  limit: string;
  unit: string;
  /** One line a person reads. */
  message: string;
  /** ISO 8601. */
  at: string;
  /** Whose spend the condition measured (a budget, a finding): the whole account's or this key's; null when the gateway does not say. */
  scope?: 'account' | 'key' | null;
  /** The window it measured (a budget's period, the window a finding was found in). */
  window?: AlertWindow;
}

export interface AlertWindow {
  start: number;
  end: number;
  start_iso: string;
  end_iso: string;
}

export interface Delivery {
  contentType: string;
  headers: Record<string, string>;
  body: string;
  /** For the text kinds: the subject or title the message goes under. */
  title?: string;
}

export function payloadFor(kind: NotifyKind, alert: Alert): Delivery {
  if (isTextKind(kind)) return { contentType: 'text/plain; charset=utf-8', headers: {}, body: alert.message, title: `tally ${alert.level}: ${alert.check} (${alert.profile})` };
  switch (kind) {
    case 'webhook':
      return {
        contentType: 'application/json',
        headers: {},
        body: JSON.stringify({ source: 'tally', profile: alert.profile, check: alert.check, level: alert.level, actual: alert.actual, limit: alert.limit, unit: alert.unit, message: alert.message, at: alert.at, ...(alert.scope === undefined ? {} : { scope: alert.scope }), ...(alert.window ? { window: alert.window } : {}) }),
      };
    case 'slack':
      return { contentType: 'application/json', headers: {}, body: JSON.stringify({ text: clipSlack(slackEscape(alert.message), SLACK_TEXT) }) };
    case 'ntfy':
      return {
        contentType: 'text/plain; charset=utf-8',
        headers: {
          // Header values are ASCII: the title is built from tally's own words and the check's name.
          Title: asciiHeader(`tally ${alert.level}: ${alert.check} (${alert.profile})`),
          Priority: alert.level === 'fail' ? 'high' : 'default',
          Tags: alert.level === 'fail' ? 'rotating_light' : alert.level === 'warn' ? 'warning' : alert.level === 'test' ? 'test_tube' : 'white_check_mark',
        },
        body: clipBytes(alert.message, NTFY_MAX_BYTES),
      };
  }
}

/** ntfy keeps at most 4,096 bytes as a message (more becomes an attachment, or is refused). */
export const NTFY_MAX_BYTES = 4096;

/** `text` in at most `max` bytes of UTF-8, cut at a character (never inside one) and marked with an ellipsis. */
export function clipBytes(text: string, max: number): string {
  if (Buffer.byteLength(text) <= max) return text;
  let used = 3;
  let out = '';
  for (const character of text) {
    used += Buffer.byteLength(character);
    if (used > max) break;
    out += character;
  }
  return `${out}\u2026`;
}

/**
 * Escaped Slack text in at most `max` characters: cut at a character, never inside an entity
 * (`&amp;`) that slackEscape wrote, and marked with an ellipsis.
 */
export function clipSlack(text: string, max: number): string {
  if (text.length <= max) return text;
  let cut = text.slice(0, max - 1);
  if (/[\ud800-\udbff]$/.test(cut)) cut = cut.slice(0, -1);
  const amp = cut.lastIndexOf('&');
  if (amp >= 0 && !cut.slice(amp).includes(';')) cut = cut.slice(0, amp);
  return `${cut}\u2026`;
}

/** A name from the gateway as a message shows it: at most `max` characters (a 100 KB model name is not news). */
export function shortName(name: string, max = 80): string {
  const characters = [...name];
  return characters.length <= max ? name : `${characters.slice(0, max - 1).join('')}\u2026`;
}

/** Slack shows at most 40,000 characters of a message's text; tally's alerts stay far below, a long name cut. */
const SLACK_TEXT = 4000;

/** Slack's incoming-webhook text: &, < and > are its control characters. */
export function slackEscape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function asciiHeader(text: string): string {
  return text.replace(/[\u2010-\u2015]/g, '-').replace(/[^\x20-\x7e]/g, '?').slice(0, 200);
}
