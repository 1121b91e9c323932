// What may be shown of a secret, and how secrets are kept out of text we print.

/** At most the first 8 and last 4 characters; short secrets show less. */
export function maskSecret(secret: string): string {
  if (secret.length >= 24) return `${secret.slice(0, 8)}…${secret.slice(-4)}`;
  if (secret.length >= 12) return `${secret.slice(0, 4)}…${secret.slice(-2)}`;
  return '****';
}

// Anything that looks like an `sk-` style key, whatever prefix the service puts before it.
const KEY_LIKE = /[A-Za-z0-9_-]*sk-[A-Za-z0-9_-]{6,}/g;

/**
 * The ways a secret may be written back at us: as it is, URL-encoded (a query string, a
 * redirect's Location), in base64 or base64url (a Basic header, a token blob), in hex.
 */
export function secretForms(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8');
  const forms = [secret, encodeURIComponent(secret), encodeURIComponent(encodeURIComponent(secret)), bytes.toString('base64'), bytes.toString('base64').replace(/=+$/, ''), bytes.toString('base64url'), bytes.toString('hex')];
  return [...new Set(forms)].sort((a, b) => b.length - a.length);
}

/** Replaces every known secret (in any of its encoded forms), and anything key-like, with its masked form. */
export function redact(text: string, secrets: readonly (string | undefined)[] = []): string {
  let result = text;
  for (const secret of secrets) {
    if (!secret || secret.length < 4) continue;
    for (const form of secretForms(secret)) if (result.includes(form)) result = result.split(form).join(maskSecret(secret));
  }
  return result.replace(KEY_LIKE, (match) => maskSecret(match));
}

/** Validates a key or token typed or piped in: trims line endings, refuses control characters. */
export function cleanSecretInput(raw: string): { ok: true; secret: string } | { ok: false; reason: string } {
  const secret = raw.replace(/^[ \t]+/, '').replace(/[ \t]*(?:\r?\n)*$/, '');
  if (secret === '') return { ok: false, reason: 'no key was given' };
  if (!/^[\x21-\x7e]+$/.test(secret)) {
    return { ok: false, reason: 'the key contains a space, line break, NUL or other non-printable character' };
  }
  return { ok: true, secret };
}
