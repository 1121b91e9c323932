// Which family of the interface a path belongs to: it decides the error shapes (the spec's
// Errors table) and the rate limit that applies.
export type Family = 'native' | 'models' | 'compat' | 'catalog';

export function familyOf(path: string): Family | undefined {
  if (path.startsWith('/v1/open/')) return 'native';
  if (path === '/v1/models' || path === '/alt/v1/models') return 'models';
  if (path === '/api/pricing') return 'catalog';
  if (/^\/(?:v1\/)?dashboard\/billing\/(?:subscription|usage)$/.test(path) || path === '/api/usage/token/' || path === '/api/usage/token') return 'compat';
  return undefined;
}

/** The family's answer to a failure that is not about authentication. */
export function familyError(family: Family | undefined, message: string): { status: number; body: unknown } {
  switch (family) {
    case 'catalog': return { status: 200, body: { success: false, message } };
    case 'compat': return { status: 200, body: { error: { type: 'upstream_error', code: 'billing_unavailable', message } } };
    default: return { status: 500, body: { error: message } };
  }
}
