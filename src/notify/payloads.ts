// What each kind of destination receives: one payload builder per kind. The message never holds
// a credential (the caller scrubs it); Slack's control characters are escaped.
import type { AlertLevel } from '../domain/alerts.js';

export type NotifyKind = 'webhook' | 'slack' | 'ntfy';
export const NOTIFY_KINDS: readonly NotifyKind[] = ['webhook', 'slack', 'ntfy'];

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
}

export interface Delivery {
  contentType: string;
  headers: Record<string, string>;
  body: string;
}

export function payloadFor(kind: NotifyKind, alert: Alert): Delivery {
  switch (kind) {
    case 'webhook':
      return {
        contentType: 'application/json',
        headers: {},
        body: JSON.stringify({ source: 'tally', profile: alert.profile, check: alert.check, level: alert.level, actual: alert.actual, limit: alert.limit, unit: alert.unit, message: alert.message, at: alert.at }),
      };
    case 'slack':
      return { contentType: 'application/json', headers: {}, body: JSON.stringify({ text: slackEscape(alert.message) }) };
    case 'ntfy':
      return {
        contentType: 'text/plain; charset=utf-8',
        headers: {
          // Header values are ASCII: the title is built from tally's own words and the check's name.
          Title: asciiHeader(`tally ${alert.level}: ${alert.check} (${alert.profile})`),
          Priority: alert.level === 'fail' ? 'high' : 'default',
          Tags: alert.level === 'fail' ? 'rotating_light' : alert.level === 'warn' ? 'warning' : alert.level === 'test' ? 'test_tube' : 'white_check_mark',
        },
        body: alert.message,
      };
  }
}

/** Slack's incoming-webhook text: &, < and > are its control characters. */
export function slackEscape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function asciiHeader(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, '?').slice(0, 200);
}
