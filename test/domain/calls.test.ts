// The per-call log's fields found in the records themselves, whatever the gateway names them.
import { describe, expect, it } from 'vitest';
import { callCost, callFields, callIdentity } from '../../src/domain/calls.js';
import { timeSeconds } from '../../src/domain/records.js';
import { parseJson } from '../../src/domain/json.js';
import { parseSession } from '../../src/statusline/session.js';

describe('callFields', () => {
  it.each([
    [{ id: 'a', created_at: 1795722627, model: 'x', cost: '0.1' }, { id: 'id', time: 'created_at', cost: 'cost' }],
    [{ request_id: 'r', ts: 1795722627000, model_name: 'x', unit_price: '0.002', charge: '0.1' }, { id: 'request_id', time: 'ts', cost: 'charge' }],
    [{ log_id: 7, timestamp: '2026-11-27T01:00:00Z', quota: '0.30000000', prompt_tokens: 3 }, { id: 'log_id', time: 'timestamp', cost: 'quota' }],
    [{ model: 'x', amount_yuan: '1.5' }, { cost: 'amount_yuan' }],
  ])('finds the id, time and cost of %j', (record, fields) => {
    expect(callFields([parseJson(JSON.stringify(record)) as never])).toEqual(fields);
  });

  it('reads times in seconds, milliseconds or ISO 8601, and never a cost that is not a decimal string', () => {
    expect(timeSeconds(1795722627)).toBe(1795722627);
    expect(timeSeconds(1795722627500)).toBe(1795722627.5);
    expect(timeSeconds('2026-11-27T01:00:00Z')).toBe(Date.UTC(2026, 10, 27, 1) / 1000);
    expect(timeSeconds('yesterday')).toBeUndefined();
    expect(callCost({ cost: 0.1 } as never, { cost: 'cost' })).toBeUndefined();
    expect(callCost({ cost: '0.10000000' } as never, { cost: 'cost' })).toBe('0.10000000');
  });

  it('names a call by its id, or by the whole entry when the log has none', () => {
    expect(callIdentity({ id: 'a', cost: '1' } as never, { id: 'id' })).toBe('id:a');
    expect(callIdentity({ cost: '1' } as never, {})).toBe('entry:{"cost":"1"}');
    expect(callIdentity({ cost: '1' } as never, {})).not.toBe(callIdentity({ cost: '2' } as never, {}));
  });
});

describe('parseSession (an agent status line\'s stdin)', () => {
  it('takes the display name, else the id; the workspace folder, else cwd; a session id only of safe characters', () => {
    expect(parseSession('{"model":{"id":"claude-opus-4-1","display_name":"Opus"},"workspace":{"current_dir":"/a"},"cwd":"/b","session_id":"s-1"}')).toEqual({ model: 'Opus', dir: '/a', project: '/a', id: 's-1' });
    expect(parseSession('{"model":{"id":"m"},"cwd":"/b","session_id":"../../etc"}')).toEqual({ model: 'm', dir: '/b', project: '/b' });
    // The project's folder, where its .tally.json is: an absolute one only.
    expect(parseSession('{"workspace":{"current_dir":"/p/src","project_dir":"/p"}}')).toEqual({ dir: '/p/src', project: '/p' });
    expect(parseSession('{"workspace":{"current_dir":"src","project_dir":"p"}}')).toEqual({ dir: 'src' });
    for (const text of [undefined, '', '  ', 'null', '[]', '"x"', '{"model":1}', '{not json']) expect(parseSession(text), String(text)).toBeUndefined();
  });
});
