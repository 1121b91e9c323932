import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SettingsStore } from '../../src/settings/store.js';
import { resolveSettings } from '../../src/settings/resolve.js';
import { parseBaseUrl } from '../../src/settings/base-url.js';
import { ConfigError, UsageError } from '../../src/errors.js';
import { tempDir } from '../helpers.js';

const dirs: { remove: () => void }[] = [];
function dir(): string {
  const d = tempDir();
  dirs.push(d);
  return join(d.path, 'state');
}
afterEach(() => dirs.splice(0).forEach((d) => d.remove()));

describe('SettingsStore', () => {
  it('keeps dotted profile names and URLs as single keys', async () => {
    const store = await SettingsStore.open(dir());
    await store.updateProfile('gw.example.com', () => ({ base_url: 'https://gw.example.com', api_key: 'k.with.dots' }));
    const raw = JSON.parse(readFileSync(store.path, 'utf8'));
    expect(raw).toEqual({ profiles: { 'gw.example.com': { base_url: 'https://gw.example.com', api_key: 'k.with.dots' } } });
    expect(store.profile('gw.example.com')?.api_key).toBe('k.with.dots');
  });

  it('creates the folder 0700 and the file 0600, even under umask 000 and over a 0644 file', async () => {
    const state = dir();
    const old = process.umask(0);
    try {
      const store = await SettingsStore.open(state);
      await store.updateProfile('default', () => ({ api_key: 'secret-1' }));
      expect(statSync(state).mode & 0o777).toBe(0o700);
      expect(statSync(store.path).mode & 0o777).toBe(0o600);
      chmodSync(store.path, 0o644);
      await store.updateProfile('default', () => ({ api_key: 'secret-2' }));
      expect(statSync(store.path).mode & 0o777).toBe(0o600);
    } finally {
      process.umask(old);
    }
  });

  it.each([
    ['truncated JSON', '{"profiles": {"default": {"api_k'],
    ['binary', '\u0000\u0001\u00ff\u00fe garbage'],
    ['a non-object profiles', '{"profiles": [1, 2]}'],
  ])('reports %s as "config unreadable" and leaves its bytes alone', async (_name, content) => {
    const state = dir();
    mkdirSync(state, { recursive: true });
    const path = join(state, 'config.json');
    writeFileSync(path, content, { mode: 0o600 });
    const store = await SettingsStore.open(state);
    const error = await Promise.resolve().then(() => store.profileNames()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    const writing = await store.updateProfile('default', () => ({ api_key: 'k' })).catch((e: unknown) => e);
    expect(writing).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).exitCode).toBe(2);
    expect((error as Error).message.startsWith(`config unreadable: ${path}; not modified`)).toBe(true);
    expect(readFileSync(path, 'utf8')).toBe(content);
  });

  it('keeps both profiles when two updates race', async () => {
    const state = dir();
    const [a, b] = await Promise.all([SettingsStore.open(state), SettingsStore.open(state)]);
    await Promise.all([
      a.updateProfile('one', () => ({ api_key: 'k1' })),
      b.updateProfile('two', () => ({ api_key: 'k2' })),
    ]);
    const check = await SettingsStore.open(state);
    expect(check.profileNames().sort()).toEqual(['one', 'two']);
  });
});

describe('resolveSettings', () => {
  const never = async (): Promise<SettingsStore> => {
    throw new Error('the store must not be opened');
  };

  it('takes flag over environment over profile, and does not open the store when it needs nothing from it', async () => {
    const settings = await resolveSettings({ flags: { baseUrl: 'https://flag.test' }, env: { TALLY_BASE_URL: 'https://env.test', TALLY_API_KEY: 'env-key-123' }, openStore: never });
    expect(settings.baseUrl?.href).toBe('https://flag.test/');
    expect(settings.baseUrlSource).toBe('flag');
    expect(settings.credential).toEqual({ kind: 'api-key', secret: 'env-key-123', source: 'env' });
    expect(settings.profile).toBe('default');
  });

  it('checks that a profile named by flag or TALLY_PROFILE is stored (login may name a new one)', async () => {
    const store = await SettingsStore.open(dir());
    await store.updateProfile('work', () => ({ base_url: 'https://stored.test' }));
    const env = { TALLY_API_KEY: 'env-key-123', TALLY_PROFILE: 'work' };
    expect((await resolveSettings({ flags: {}, env, openStore: async () => store })).profile).toBe('work');
    await expect(resolveSettings({ flags: { profile: 'play' }, env, openStore: async () => store })).rejects.toThrow('there is no profile "play"');
    expect((await resolveSettings({ flags: { profile: 'play' }, env, openStore: async () => store, mustExist: false })).profile).toBe('play');
  });

  it('falls back to the stored profile', async () => {
    const store = await SettingsStore.open(dir());
    await store.updateProfile('default', () => ({ base_url: 'https://stored.test', api_key: 'stored-key' }));
    const settings = await resolveSettings({ flags: {}, env: {}, openStore: async () => store });
    expect(settings.baseUrl?.href).toBe('https://stored.test/');
    expect(settings.credential?.source).toBe('profile');
  });
});

describe('parseBaseUrl', () => {
  it.each([
    ['file:///etc/passwd', '--base-url must use https:// (got file:)'],
    ['ftp://gw.test', '--base-url must use https:// (got ftp:)'],
    ['gw.example.com', '--base-url "gw.example.com" is not a URL (expected https://host[:port][/path])'],
    ['https://user:pw@gw.test', '--base-url must not contain a user name or password; credentials go in `tally login` or TALLY_API_KEY'],
    ['http://gw.example.com', '--base-url uses plain http:// to gw.example.com; use https://, or pass --allow-http if you really mean it'],
  ])('refuses %s', (text, message) => {
    expect(() => parseBaseUrl(text)).toThrow(UsageError);
    expect(() => parseBaseUrl(text)).toThrow(message);
  });

  it('allows http to loopback, and elsewhere with --allow-http', () => {
    expect(parseBaseUrl('http://127.0.0.1:8080').host).toBe('127.0.0.1:8080');
    expect(parseBaseUrl('http://localhost').hostname).toBe('localhost');
    expect(parseBaseUrl('http://[::1]:9').hostname).toBe('[::1]');
    expect(parseBaseUrl('http://gw.internal', true).hostname).toBe('gw.internal');
  });
});
