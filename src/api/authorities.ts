// TALLY_CA_FILE's certificate authorities beside the system's, as one TLS context every
// connection shares (HTTP/2, HTTP/1.1 and through a proxy alike).

/**
 * A TLS context trusting Node's root certificates and `pem`'s (a PEM bundle): the root store's
 * copy takes the file's certificates (the native context's addCACert, what `ca` itself calls);
 * where that is not offered, the roots and the file as `ca`.
 */
export function withAuthorities(tls: typeof import('node:tls'), pem: string): import('node:tls').SecureContext {
  const context = tls.createSecureContext();
  const native = (context as { context?: { addCACert?: (pem: string) => void } }).context;
  if (typeof native?.addCACert !== 'function') return tls.createSecureContext({ ca: [...tls.rootCertificates, pem] });
  native.addCACert(pem);
  return context;
}
