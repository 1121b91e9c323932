// How every cache and remembered fact in the state folder is keyed: by what its answer depends
// on. The gateway (its base URL, origin and path) always; the caller too wherever the answer
// depends on who asks (a key's daily limit, its runway). The caller is named by a hash of the
// credential, never by the secret, so a cache file tells nobody the key.
// SHA-256 from @noble/hashes: loading node:crypto costs ~2 ms, a fifth of a cached statusline.
import { sha256 } from '@noble/hashes/sha2';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils';
import { trimBoth } from '../domain/trim.js';

/** A short, stable name of a credential: 16 hex digits of SHA-256 over it (with a domain prefix). */
export function credentialId(secret: string): string {
  return digest(`tally credential\u0000${secret}`).slice(0, 16);
}

/**
 * The file-name part for a cache of `baseUrl`'s answers (and, with `credential`, of that
 * caller's): the URL as readable text, then a hash of everything it is keyed by, so two URLs
 * that differ only in punctuation, or two keys on one gateway, never share a file.
 */
export function cacheFileId(baseUrl: URL, credential?: string): string {
  const readable = trimBoth(`${baseUrl.protocol}//${baseUrl.host}${baseUrl.pathname}`.replace(/[^A-Za-z0-9.-]+/g, '_'), '_').slice(0, 80);
  const keyedBy = credential === undefined ? baseUrl.href : `${baseUrl.href}\u0000${credentialId(credential)}`;
  return `${readable}-${digest(keyedBy).slice(0, 12)}`;
}

/** An account's id in a fleet: what every key of one account on one origin reads alike, hashed. */
export function accountId(origin: string, currency: string, balance: string, lifetimeSpend: string): string {
  return `acct-${digest(`tally account\u0000${origin}\u0000${currency}\u0000${balance}\u0000${lifetimeSpend}`).slice(0, 12)}`;
}

/** Each text's digest once a run: a run names the same caches (and the same key) several times. */
const digests = new Map<string, string>();

function digest(text: string): string {
  let hex = digests.get(text);
  if (hex === undefined) digests.set(text, (hex = bytesToHex(sha256(utf8ToBytes(text)))));
  return hex;
}

/** Where a cache of `kind` for this gateway (and caller) lives: `<state>/cache/<kind>-<id><ext>`. */
export function cachePath(stateDir: string, kind: string, baseUrl: URL, credential?: string, ext = '.json'): string {
  return `${stateDir}/cache/${kind}-${cacheFileId(baseUrl, credential)}${ext}`;
}

/** The lock that keeps two runs from writing one file a user named (a ledger) at once: in the state folder, never beside the file. */
export function fileLockPath(stateDir: string, kind: string, realPath: string): string {
  return `${stateDir}/locks/${kind}-${digest(`tally lock\u0000${realPath}`).slice(0, 16)}.lock`;
}
