// What may be shown of a secret, and how secrets are kept out of text we print.

/** At most the first 8 and last 4 characters; short secrets show less. */
export function maskSecret(secret: string): string {
  if (secret.length >= 24) return `${secret.slice(0, 8)}…${secret.slice(-4)}`;
  if (secret.length >= 12) return `${secret.slice(0, 4)}…${secret.slice(-2)}`;
  return '****';
}

// Anything that looks like an `sk-` style key, whatever prefix the service puts before it: a run
// of key characters ([A-Za-z0-9_-]) holding `sk-` with at least six of them after it. Found in
// one pass over the text (a regular expression that backtracked over a long run of word
// characters took time quadratic in it: a megabyte-long word held a command for minutes).
const isKeyChar = (code: number) => (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 45 || code === 95;

/** The [start, end) of each key-shaped run in `text`, in order. */
function keyLikeRuns(text: string): [number, number][] {
  const runs: [number, number][] = [];
  for (let at = text.indexOf('sk-'); at >= 0; ) {
    let start = at;
    while (start > 0 && isKeyChar(text.charCodeAt(start - 1))) start--;
    let end = at + 3;
    while (end < text.length && isKeyChar(text.charCodeAt(end))) end++;
    // The first `sk-` of a run has the most key characters after it: the run is a key when it has six.
    const first = text.indexOf('sk-', start);
    if (end - (first + 3) >= 6) runs.push([start, end]);
    at = text.indexOf('sk-', end);
  }
  return runs;
}

function maskKeyLike(text: string): string {
  const runs = keyLikeRuns(text);
  if (runs.length === 0) return text;
  let out = '';
  let last = 0;
  for (const [start, end] of runs) {
    out += text.slice(last, start) + maskSecret(text.slice(start, end));
    last = end;
  }
  return out + text.slice(last);
}

/** Whether a value is shaped like an API key (`…sk-…`): never stored as a setting, never shown. */
export function looksLikeSecret(text: string): boolean {
  return keyLikeRuns(text).length > 0;
}

// Every run with a key works these out once: written with plain string replacement, not regular
// expressions (each of which V8 compiles on its first use, a few hundredths of a millisecond apiece).
const entities = (text: string) => text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
const jsonString = (text: string) => JSON.stringify(text).slice(1, -1);
/** `text` with each character of `chars` preceded by a backslash (Markdown's escape). */
const backslashed = (text: string, chars: string) => {
  let out = '';
  for (const char of text) out += chars.includes(char) ? `\\${char}` : char;
  return out;
};

/** How the formats tally writes escape a text (the same rules as output/'s escapers, for what a key can hold). */
const OUTPUT_ENCODINGS: ((text: string) => string)[] = [
  jsonString,
  // JSON inside JSON: a document in an MCP result's text, an NDJSON line in a JSON string.
  (text) => jsonString(jsonString(text)),
  (text) => text.replaceAll('"', '""'),
  (text) => entities(text).replaceAll('"', '&quot;').replaceAll("'", '&#39;'),
  (text) => entities(text).replaceAll('"', '&quot;').replaceAll("'", '&apos;'),
  (text) => backslashed(entities(text), '\\`*_[]()#!|~').replaceAll('@', '&#64;'),
  (text) => text.replaceAll('%', '%25').replaceAll(':', '%3A').replaceAll(',', '%2C'),
];

/**
 * The ways a secret may be written back at us: as it is, URL-encoded (a query string, a
 * redirect's Location) once or twice or byte by byte, in hex of either case, and in base64 or
 * base64url at any of the three alignments it can take inside a longer encoded text (`Bearer
 * <key>` in a Basic header or a token blob): for each, the part of the encoding that depends on
 * the secret's bytes alone.
 */
export function secretForms(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8');
  const percentAll = [...bytes].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');
  const forms = [
    secret,
    encodeURIComponent(secret),
    encodeURIComponent(encodeURIComponent(secret)),
    percentAll,
    percentAll.toUpperCase(),
    bytes.toString('hex'),
    bytes.toString('hex').toUpperCase(),
  ];
  // As each output format tally writes would escape it: a key holding `"`, `\`, `_` or `&` is
  // still found once JSON, CSV, Markdown, HTML, XML or a workflow command has written it.
  for (const encode of OUTPUT_ENCODINGS) forms.push(encode(secret));
  for (let align = 0; align < 3; align++) {
    const encoded = Buffer.concat([Buffer.alloc(align), bytes]).toString('base64');
    // Groups of three bytes that hold only the secret's bytes: the same characters wherever it sits.
    const first = align === 0 ? 0 : 1;
    const last = Math.floor((align + bytes.length) / 3);
    const core = encoded.slice(4 * first, 4 * last);
    if (core.length >= 8) forms.push(core, core.replaceAll('+', '-').replaceAll('/', '_'));
  }
  return [...new Set(forms)].sort((a, b) => b.length - a.length);
}

/** Secrets shorter than this are not looked for in text (too many innocent matches). */
const MIN_SECRET_LENGTH = 8;

/**
 * Every secret of one run (the key, a device token, a proxy's password, a webhook URL), and the
 * one redaction step every line that leaves the process goes through: stdout, stderr, files and
 * notifications alike.
 */
export class SecretSet {
  #forms: { form: string; mask: string }[] = [];
  readonly #seen = new Set<string>();
  /** Secrets added whose forms are not made yet (made before any text is scrubbed, or by prepare()). */
  #pending: string[] = [];

  /** Adds a secret (and every encoding of it) for the rest of the run. */
  add(secret: string | undefined): void {
    if (!secret || secret.length < MIN_SECRET_LENGTH || this.#seen.has(secret)) return;
    this.#seen.add(secret);
    this.#pending.push(secret);
  }

  /** Makes every added secret's forms (a fraction of a millisecond each), ahead of the first text scrubbed. */
  prepare(): void {
    if (this.#pending.length === 0) return;
    for (const secret of this.#pending.splice(0)) {
      const mask = maskSecret(secret);
      for (const form of secretForms(secret)) this.#forms.push({ form, mask });
    }
    this.#forms.sort((a, b) => b.form.length - a.form.length);
  }

  /** Data (results on stdout, files): every known secret in any encoding masked; nothing else changed. */
  scrub(text: string): string {
    this.prepare();
    let result = text;
    for (const { form, mask } of this.#forms) if (result.includes(form)) result = result.split(form).join(mask);
    return result;
  }

  /** Messages (stderr, notifications): known secrets, and anything shaped like a key. */
  scrubMessage(text: string): string {
    return maskKeyLike(this.scrub(text));
  }

  get size(): number {
    return this.#seen.size;
  }
}

/** Replaces every known secret (in any of its encoded forms), and anything key-like, with its masked form. */
export function redact(text: string, secrets: readonly (string | undefined)[] = []): string {
  const set = new SecretSet();
  for (const secret of secrets) set.add(secret);
  return set.scrubMessage(text);
}

/** The secrets a process's environment holds: the key, and a proxy's user, password and query. */
export function environmentSecrets(env: NodeJS.ProcessEnv): string[] {
  const found: string[] = [];
  if (env.TALLY_API_KEY) found.push(env.TALLY_API_KEY.trim());
  for (const name of ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy', 'ALL_PROXY', 'all_proxy']) {
    const value = env[name];
    if (!value) continue;
    try {
      const url = new URL(value);
      if (url.password) found.push(decodeURIComponent(url.password));
      if (url.username && url.password) found.push(decodeURIComponent(url.username));
      for (const [, v] of url.searchParams) found.push(v);
    } catch {
      // Not a URL: nothing to take from it.
    }
  }
  return found;
}

/** `text` without the line endings it ends with (LF or CRLF) and the spaces and tabs before them: a scan from the end. */
function withoutLineEndings(text: string): string {
  let end = text.length;
  while (end > 0 && text[end - 1] === '\n') {
    end--;
    if (end > 0 && text[end - 1] === '\r') end--;
  }
  while (end > 0 && (text[end - 1] === ' ' || text[end - 1] === '\t')) end--;
  return text.slice(0, end);
}

/** Validates a key or token typed or piped in: trims line endings, refuses control characters. */
export function cleanSecretInput(raw: string): { ok: true; secret: string } | { ok: false; reason: string } {
  const secret = withoutLineEndings(raw.replace(/^[ \t]+/, ''));
  if (secret === '') return { ok: false, reason: 'no key was given' };
  if (secret.length > 4096) return { ok: false, reason: `the key is ${secret.length} characters long; keys are far shorter (at most 4096)` };
  if (!/^[\x21-\x7e]+$/.test(secret)) {
    return { ok: false, reason: 'the key contains a space, line break, NUL or other non-printable character' };
  }
  return { ok: true, secret };
}
