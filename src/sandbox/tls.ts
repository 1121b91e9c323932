// The sandbox's TLS certificate: self-signed for 127.0.0.1 and localhost, made once for a state
// folder (never one private key shared through the repository) and kept beside its key, 0600.
// selfsigned (WebCrypto underneath) makes it; it loads only for `tally sandbox --tls`.
import { join } from 'node:path';
import { ensurePrivateDir, writeFileAtomic } from '../settings/files.js';
import { readStateFile } from '../settings/read-file.js';
import { importExternal } from '../external.js';

export interface SandboxTls {
  key: string;
  cert: string;
  /** The certificate's file: what TALLY_CA_FILE names to trust it. */
  certFile: string;
}

/** Days the certificate is valid from when it is made (by the machine's clock: TLS checks that one). */
const VALID_DAYS = 825;

export async function sandboxTls(stateDir: string): Promise<SandboxTls> {
  const dir = join(stateDir, 'sandbox');
  const certFile = join(dir, 'tls-cert.pem');
  const keyFile = join(dir, 'tls-key.pem');
  try {
    // Kept files are read as every kept file is (a FIFO or a device is no pair: a new one is made).
    const [key, cert] = [readStateFile(keyFile, 64 * 1024).toString('utf8'), readStateFile(certFile, 64 * 1024).toString('utf8')];
    if (stillValid(cert) && fits(key, cert)) return { key, cert, certFile };
  } catch {
    // None yet (or unreadable): make one.
  }
  const selfsigned = await importExternal<{ generate: typeof import('selfsigned').generate; default?: { generate: typeof import('selfsigned').generate } }>('selfsigned');
  const generate = selfsigned.generate ?? selfsigned.default!.generate;
  const now = new Date();
  const pems = await generate([{ name: 'commonName', value: 'tally sandbox' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate: new Date(now.getTime() - 86_400_000),
    notAfterDate: new Date(now.getTime() + VALID_DAYS * 86_400_000),
    extensions: [
      { name: 'basicConstraints', cA: true },
      { name: 'keyUsage', digitalSignature: true, keyCertSign: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }, { type: 2, value: 'localhost' }] },
    ],
  });
  ensurePrivateDir(dir, { own: true });
  writeFileAtomic(keyFile, [pems.private]);
  writeFileAtomic(certFile, [pems.cert]);
  return { key: pems.private, cert: pems.cert, certFile };
}

/** Whether the kept key is the certificate's: a pair that does not fit is replaced, as an expired one is. */
function fits(key: string, cert: string): boolean {
  try {
    const { X509Certificate, createPrivateKey } = process.getBuiltinModule('node:crypto');
    return new X509Certificate(cert).checkPrivateKey(createPrivateKey(key));
  } catch {
    return false;
  }
}

/** Whether a kept certificate is valid for another week at least. */
function stillValid(cert: string): boolean {
  try {
    const { X509Certificate } = process.getBuiltinModule('node:crypto');
    return Date.parse(new X509Certificate(cert).validTo) > Date.now() + 7 * 86_400_000;
  } catch {
    return false;
  }
}
