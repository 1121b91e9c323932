import { describe, expect, it } from 'vitest';
import { describeColumns, findContinuation, findRecords, scopeOf } from '../../src/domain/records.js';
import { parseJson } from '../../src/domain/json.js';

const json = (text: string) => parseJson(text);

describe('findRecords', () => {
  it.each([
    ['a bare array', '[{"id": 1}]', undefined, 1],
    ['a well-known field', '{"total": 3, "logs": [{"id": 1}, {"id": 2}], "tags": [{"t": 1}, {"t": 2}, {"t": 3}]}', 'logs', 2],
    ['the largest array of objects', '{"rows2": [{"id": 1}], "entries_x": [{"id": 1}, {"id": 2}]}', 'entries_x', 2],
    ['one level down', '{"data": {"items": [{"id": 1}], "next_cursor": "c2"}, "ok": true}', 'data', 1],
  ])('finds %s', (_name, body, key, count) => {
    const found = findRecords(json(body))!;
    expect(found.key).toBe(key);
    expect(found.records).toHaveLength(count);
  });

  it('finds nothing in a response without records', () => {
    expect(findRecords(json('{"ok": true, "ids": [1, 2]}'))).toBeUndefined();
  });
});

describe('findContinuation', () => {
  it.each([
    ['{"next_cursor": "abc"}', { kind: 'param', name: 'cursor', value: 'abc', field: 'next_cursor' }],
    ['{"nextPageToken": "t"}', { kind: 'param', name: 'pageToken', value: 't', field: 'nextPageToken' }],
    ['{"next_page": 3}', { kind: 'param', name: 'page', value: '3', field: 'next_page' }],
    ['{"next": "/v1/open/logs?cursor=z"}', { kind: 'url', url: '/v1/open/logs?cursor=z', field: 'next' }],
    ['{"pagination": {"next_cursor": "p"}}', { kind: 'param', name: 'cursor', value: 'p', field: 'pagination' }],
    ['{"data": {"items": [], "next_cursor": "d"}}', { kind: 'param', name: 'cursor', value: 'd', field: 'data' }],
    // More exists, but no continuation tally knows: said, never taken for the end.
    ['{"items": [], "has_more": true}', { kind: 'unrecognised', field: 'has_more' }],
    ['{"data": [], "has_more": true, "first_id": "a", "last_id": "z"}', { kind: 'unrecognised', field: 'has_more' }],
    ['{"rows": [], "meta": {"hasMore": true}}', { kind: 'unrecognised', field: 'meta.hasMore' }],
  ])('reads %s', (body, continuation) => {
    expect(findContinuation(json(body))).toEqual(continuation);
  });

  it.each(['{"next_cursor": null}', '{"next_cursor": ""}', '{"has_more": false, "next_cursor": "x"}', '{"items": []}'])('sees no next page in %s', (body) => {
    expect(findContinuation(json(body))).toBeUndefined();
  });
});

describe('describeColumns', () => {
  it('labels decimal strings as money and epoch fields named as times', () => {
    const columns = describeColumns(json('[{"id": "c1", "created_at": 1795300000, "tokens": 12, "cost": "0.01", "note": null}, {"id": "c2", "created_at": 1795300100, "tokens": 3, "cost": "0.20", "note": "x"}]') as never);
    expect(columns).toEqual([
      { name: 'id', kind: 'text' },
      { name: 'created_at', kind: 'time' },
      { name: 'tokens', kind: 'number' },
      { name: 'cost', kind: 'money' },
      { name: 'note', kind: 'text' },
    ]);
  });
});

describe('scopeOf', () => {
  it.each([
    ['{"scope": "account", "buckets": []}', 'account'],
    ['{"scope": "USER", "buckets": []}', 'account'],
    ['{"scope": "key", "data": []}', 'key'],
    ['{"scope": "api_key", "data": []}', 'key'],
    ['{"scope": "token", "data": []}', 'key'],
    ['{"scope": "team", "data": []}', undefined],
    ['{"scope": 1, "data": []}', undefined],
    ['{"data": []}', undefined],
    ['[]', undefined],
  ])('reads %s as %s', (body, scope) => {
    expect(scopeOf(json(body))).toBe(scope);
  });
});
