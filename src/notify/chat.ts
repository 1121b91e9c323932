// The chat tools teams use, as their webhooks read a message: Feishu (Lark) and DingTalk custom
// bots (each signed its own way with the bot's secret), WeCom group bots (20 messages a minute),
// Discord (2,000 characters a message) and Telegram (4,096). Each request says how to read the
// reply: these tools answer HTTP 200 with an error code in the body when they refuse a message,
// which is a failed delivery, never a sent one.
import { createHmac } from 'node:crypto';
import type { ChatKind } from '../domain/notify-kinds.js';

export interface ChatRequest {
  url: URL;
  body: string;
  /** Why the reply says the message was refused; undefined when it was taken. */
  refused(status: number, reply: string): string | undefined;
}

/** Discord's content limit (characters) and Telegram's text limit (characters). */
export const DISCORD_MAX = 2000;
export const TELEGRAM_MAX = 4096;
/** WeCom's text content limit (bytes of UTF-8) and its rate: 20 messages a minute per bot. */
export const WECOM_MAX_BYTES = 2048;
export const WECOM_PER_MINUTE = 20;

/** Feishu's signature: HMAC-SHA256 keyed by "timestamp\nsecret" over an empty message, base64; the timestamp in seconds. */
export function feishuSign(secret: string, timestampSeconds: number): string {
  return createHmac('sha256', `${timestampSeconds}\n${secret}`).update('').digest('base64');
}

/** DingTalk's signature: HMAC-SHA256 keyed by the secret over "timestamp\nsecret", base64; the timestamp in milliseconds. */
export function dingtalkSign(secret: string, timestampMs: number): string {
  return createHmac('sha256', secret).update(`${timestampMs}\n${secret}`).digest('base64');
}

function json(reply: string): Record<string, unknown> | undefined {
  try {
    const parsed = JSON.parse(reply) as unknown;
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** A reply's own error, for tools that answer {errcode, errmsg} (DingTalk, WeCom). */
function errcodeRefusal(reply: string, more: (code: number) => string = () => ''): string | undefined {
  const r = json(reply);
  if (!r) return 'its reply is not JSON';
  const code = r.errcode;
  if (code === 0 || code === '0') return undefined;
  return `errcode ${String(code ?? 'missing')}: ${String(r.errmsg ?? '').slice(0, 200)}${typeof code === 'number' ? more(code) : ''}`;
}

/** `text` in parts of at most `max` characters, cut at line breaks where it can, each part but a lone one marked (1/2). */
export function splitText(text: string, max: number): string[] {
  const characters = [...text];
  if (characters.length <= max) return [text];
  const room = max - 8; // " (12/12)"
  const parts: string[] = [];
  let rest = characters;
  while (rest.length > 0) {
    if (rest.length <= room) {
      parts.push(rest.join(''));
      break;
    }
    const window = rest.slice(0, room);
    const newline = window.lastIndexOf('\n');
    const cut = newline > room / 2 ? newline + 1 : room;
    parts.push(rest.slice(0, cut).join('').trimEnd());
    rest = rest.slice(cut);
  }
  return parts.map((p, i) => `${p} (${i + 1}/${parts.length})`);
}

/** `text` in at most `max` characters, cut and saying so. */
export function cutText(text: string, max: number): string {
  const characters = [...text];
  if (characters.length <= max) return text;
  const note = ' [cut: the message was longer than this tool takes]';
  return `${characters.slice(0, max - note.length).join('')}${note}`;
}

/** The requests that carry `text` to a chat tool's webhook (several for a long Discord message). */
export function chatRequests(kind: ChatKind, webhook: string, secret: string | undefined, text: string, nowMs: number): ChatRequest[] {
  const url = new URL(webhook);
  switch (kind) {
    case 'feishu': {
      const timestamp = Math.floor(nowMs / 1000);
      return [
        {
          url,
          body: JSON.stringify({ ...(secret ? { timestamp: String(timestamp), sign: feishuSign(secret, timestamp) } : {}), msg_type: 'text', content: { text } }),
          refused: (_status, reply) => {
            const r = json(reply);
            if (!r) return 'its reply is not JSON';
            const code = r.code ?? r.StatusCode;
            return code === 0 || code === undefined ? undefined : `code ${String(code)}: ${String(r.msg ?? r.StatusMessage ?? '').slice(0, 200)}`;
          },
        },
      ];
    }
    case 'dingtalk': {
      if (secret) {
        url.searchParams.set('timestamp', String(nowMs));
        url.searchParams.set('sign', dingtalkSign(secret, nowMs));
      }
      return [{ url, body: JSON.stringify({ msgtype: 'text', text: { content: text } }), refused: (_status, reply) => errcodeRefusal(reply) }];
    }
    case 'wecom': {
      let content = text;
      while (Buffer.byteLength(content) > WECOM_MAX_BYTES) content = cutText(content, [...content].length - 16);
      return [{ url, body: JSON.stringify({ msgtype: 'text', text: { content } }), refused: (_status, reply) => errcodeRefusal(reply, (code) => (code === 45009 || code === 130101 ? ` (past WeCom's ${WECOM_PER_MINUTE} messages a minute)` : '')) }];
    }
    case 'discord':
      return splitText(text, DISCORD_MAX).map((part) => ({
        url,
        body: JSON.stringify({ content: part, allowed_mentions: { parse: [] } }),
        refused: (status, reply) => {
          if (status === 204 || reply.trim() === '') return undefined;
          const r = json(reply);
          return r && (r.code !== undefined || r.message !== undefined) && r.id === undefined ? `code ${String(r.code)}: ${String(r.message ?? '').slice(0, 200)}` : undefined;
        },
      }));
    case 'telegram': {
      const chat = url.searchParams.get('chat_id');
      url.searchParams.delete('chat_id');
      return [
        {
          url,
          body: JSON.stringify({ ...(chat ? { chat_id: chat } : {}), text: cutText(text, TELEGRAM_MAX), disable_web_page_preview: true }),
          refused: (_status, reply) => {
            const r = json(reply);
            if (!r) return 'its reply is not JSON';
            return r.ok === true ? undefined : `${String(r.error_code ?? 'not ok')}: ${String(r.description ?? '').slice(0, 200)}`;
          },
        },
      ];
    }
  }
}
