// How a long message fits a chat tool: Discord's parts each within 2,000 characters, in order,
// nothing lost, each marked (property); Telegram's cut saying so.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DISCORD_MAX, TELEGRAM_MAX, chatRequests, cutText, splitText } from '../../src/notify/chat.js';

describe('a long message in a chat tool', () => {
  it('is split for Discord into marked parts within its limit, in order, nothing lost (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.string({ maxLength: 300 }), fc.constant('\n')), { maxLength: 40 }), (pieces) => {
        const text = pieces.join('');
        const parts = splitText(text, DISCORD_MAX);
        for (const part of parts) expect([...part].length).toBeLessThanOrEqual(DISCORD_MAX);
        if (parts.length === 1) expect(parts[0]).toBe(text);
        else {
          const unmarked = parts.map((p, i) => p.slice(0, -` (${i + 1}/${parts.length})`.length));
          expect(unmarked.join('').replace(/\s/g, '')).toBe(text.replace(/\s/g, ''));
        }
      }),
    );
    const requests = chatRequests('discord', 'https://discord.example/api/webhooks/1/x', undefined, 'x'.repeat(4500), 0);
    expect(requests.map((r) => (JSON.parse(r.body) as { content: string }).content.slice(-6))).toEqual([' (1/3)', ' (2/3)', ' (3/3)']);
  });

  it('is cut for Telegram, saying so', () => {
    const cut = cutText('y'.repeat(5000), TELEGRAM_MAX);
    expect([...cut].length).toBe(TELEGRAM_MAX);
    expect(cut.endsWith('[cut: the message was longer than this tool takes]')).toBe(true);
  });
});
