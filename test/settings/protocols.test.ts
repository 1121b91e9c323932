// What a gateway speaks, kept for a week: read back by the next run, forgotten after a week, and
// a file tally did not write (or cannot read) is a run that learns again, never an error.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { protocolMemory } from '../../src/settings/protocols.js';

const NOW = Date.UTC(2026, 10, 25, 9, 30);
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const fresh = () => {
  const dir = mkdtempSync(join(tmpdir(), 'protocols-'));
  dirs.push(dir);
  return dir;
};

describe('the protocol memory', () => {
  it('keeps what a run learned for the next, in a private file, origins only', async () => {
    const dir = fresh();
    const first = protocolMemory(async () => dir, () => NOW);
    await first.load();
    first.set('https://gw.example.com', 'h2');
    first.set('https://old.example.com:8443', 'http/1.1');
    const second = protocolMemory(async () => dir, () => NOW + 86_400_000);
    await second.load();
    expect(second.get('https://gw.example.com')).toBe('h2');
    expect(second.get('https://old.example.com:8443')).toBe('http/1.1');
    expect(statSync(join(dir, 'cache', 'protocols.json')).mode & 0o777).toBe(0o600);
    expect(Object.keys(JSON.parse(readFileSync(join(dir, 'cache', 'protocols.json'), 'utf8'))).sort()).toEqual(['https://gw.example.com', 'https://old.example.com:8443']);
    const weekLater = protocolMemory(async () => dir, () => NOW + 8 * 86_400_000);
    await weekLater.load();
    expect(weekLater.get('https://gw.example.com')).toBeUndefined();
  });

  it.each(['not json', '[]', JSON.stringify({ 'https://gw.example.com': { protocol: 'h3', at: NOW } }), JSON.stringify({ 'https://gw.example.com/path?key=x': { protocol: 'h2', at: NOW } })])('reads %s as nothing learned', async (text) => {
    const dir = fresh();
    mkdirSync(join(dir, 'cache'), { recursive: true });
    writeFileSync(join(dir, 'cache', 'protocols.json'), text);
    const memory = protocolMemory(async () => dir, () => NOW);
    await memory.load();
    expect(memory.get('https://gw.example.com')).toBeUndefined();
  });

  it('reads an entry dated ahead of the clock, or a file behind a link, as nothing learned', async () => {
    const dir = fresh();
    mkdirSync(join(dir, 'cache'), { recursive: true });
    writeFileSync(join(dir, 'cache', 'protocols.json'), JSON.stringify({ 'https://gw.example.com': { protocol: 'http/1.1', at: NOW + 86_400_000 }, 'https://ok.example.com': { protocol: 'h2', at: NOW - 1000 } }));
    const memory = protocolMemory(async () => dir, () => NOW);
    await memory.load();
    expect(memory.get('https://gw.example.com')).toBeUndefined();
    expect(memory.get('https://ok.example.com')).toBe('h2');
    const linked = fresh();
    mkdirSync(join(linked, 'cache'), { recursive: true });
    const { symlinkSync } = await import('node:fs');
    symlinkSync(join(dir, 'cache', 'protocols.json'), join(linked, 'cache', 'protocols.json'));
    const through = protocolMemory(async () => linked, () => NOW);
    await through.load();
    expect(through.get('https://ok.example.com')).toBeUndefined();
  });

  it('a state folder that cannot be had is a run that learns again', async () => {
    const memory = protocolMemory(async () => {
      throw new Error('no state folder');
    }, () => NOW);
    await memory.load();
    memory.set('https://gw.example.com', 'h2');
    expect(memory.get('https://gw.example.com')).toBe('h2');
  });
});
