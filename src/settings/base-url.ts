// A gateway's base URL as tally accepts it, from a flag, the environment or a profile.
import { UsageError } from '../errors.js';
import { isLoopback } from '../domain/loopback.js';

/** The origin of a URL's text, or undefined when it is not a URL. */
export function originOf(text: unknown): string | undefined {
  if (typeof text !== 'string') return undefined;
  try {
    return new URL(text).origin;
  } catch {
    return undefined;
  }
}

/** Checks a base URL: https (http only for loopback or with --allow-http), no credentials in it. */
export function parseBaseUrl(text: string, allowHttp = false, what = '--base-url'): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`${what} "${urlForDisplay(text)}" is not a URL (expected https://host[:port][/path])`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new UsageError(`${what} must use https:// (got ${url.protocol})`);
  }
  if (url.username || url.password) {
    throw new UsageError(`${what} must not contain a user name or password; credentials go in \`tally login\` or TALLY_API_KEY`);
  }
  if (url.protocol === 'http:' && !isLoopback(url.hostname) && !allowHttp) {
    throw new UsageError(`${what} uses plain http:// to ${url.hostname}; use https://, or pass --allow-http if you really mean it`);
  }
  if (url.search || url.hash) throw new UsageError(`${what} must not carry a query or fragment`);
  return url;
}

/**
 * A text meant as a URL, as it may be shown: what could be a secret in it left out (a user name
 * and password before an `@`, a query or fragment, which carry `?token=`), cut to a line's length.
 * For text that may not even parse, so no URL parser can be asked which part is which.
 */
export function urlForDisplay(text: string): string {
  const shown = withoutUserInfo(text.replace(/[?#].*$/s, (rest) => `${rest[0]}…`));
  return shown.length > 120 ? `${shown.slice(0, 117)}…` : shown;
}

/**
 * A user name and password before an `@` left out: after a scheme (`x://`, else `x:`, else none),
 * up to the last `@` before the path, query or fragment begins. A scan, linear in any length
 * (the one pattern that said this backtracked quadratically on a long word).
 */
function withoutUserInfo(text: string): string {
  const schemes = [/^[^/@]*\/\//.exec(text)?.[0], /^[^/@]*:/.exec(text)?.[0], ''];
  for (const scheme of schemes) {
    if (scheme === undefined) continue;
    const rest = text.slice(scheme.length);
    const stop = rest.search(/[/?#]/);
    const at = rest.lastIndexOf('@', stop < 0 ? rest.length : stop - 1);
    if (at >= 0) return `${scheme}…@${rest.slice(at + 1)}`;
  }
  return text;
}
