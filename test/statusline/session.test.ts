// The sessions a status line keeps: what is written is read back, a refund (a negative spend)
// included, and anything tally did not write is no entry.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readSessions, sessionsPath, withSession } from '../../src/statusline/session.js';
import { freshState } from '../helpers.js';

const who = { profile: 'default', baseUrl: new URL('https://gw.test/'), secret: 'gw-sk-test1234567890abcdef' };
const spend = (spent: string) => ({ id: 'refunded-session', started: 1795800000, spent, currency: 'CNY', complete: true, fetched_at: '2026-11-27T10:00:00.000Z' });

function written(text: string): string {
  const state = freshState();
  const path = sessionsPath(state, who);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  return state;
}

describe("a status line's kept sessions", () => {
  it.each(['-0.50000000', '0', '12.34567890'])('reads back a spend of %s as written', (spent) => {
    const state = written(withSession(who, [], spend(spent)));
    expect(readSessions(state, who)).toEqual([spend(spent)]);
  });

  it('reads nothing it did not write: another key, a spend that is not a decimal', () => {
    expect(readSessions(written(withSession({ ...who, secret: 'another-key-1234567890' }, [], spend('1'))), who)).toEqual([]);
    expect(readSessions(written(withSession(who, [], spend('1e3'))), who)).toEqual([]);
  });
});
