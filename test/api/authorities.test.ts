// TALLY_CA_FILE's authorities join the system's (api/authorities.ts withAuthorities): a gateway signed by
// either is trusted, one signed by neither is not. The system's roots are stood in for by
// OpenSSL's store (--use-openssl-ca, SSL_CERT_FILE), in a child Node of its own.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generate } from 'selfsigned';
import { afterAll, describe, expect, it } from 'vitest';
import { withAuthorities } from '../../src/api/authorities.js';

const dir = mkdtempSync(join(tmpdir(), 'tally-ca-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A self-signed certificate for 127.0.0.1 under its own name (names must differ: a store finds issuers by name). */
async function authority(name: string) {
  const now = Date.now();
  const pems = await generate([{ name: 'commonName', value: name }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate: new Date(now - 86_400_000),
    notAfterDate: new Date(now + 30 * 86_400_000),
    extensions: [
      { name: 'basicConstraints', cA: true },
      { name: 'keyUsage', digitalSignature: true, keyCertSign: true },
      { name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] },
    ],
  });
  return { key: pems.private, cert: pems.cert };
}

describe('a CA file beside the system roots', () => {
  it('trusts a server signed by the system roots and one signed by the file, and refuses a third', async () => {
    const [system, file, stranger] = await Promise.all([authority('system root'), authority('private gateway CA'), authority('stranger')]);
    const roots = join(dir, 'roots.pem');
    writeFileSync(roots, system.cert);
    // The function itself (it takes node:tls as an argument), in a Node whose roots are `system`.
    const script = join(dir, 'check.mjs');
    writeFileSync(
      script,
      `import tls from 'node:tls';
const withAuthorities = ${withAuthorities.toString()};
const pairs = JSON.parse(process.argv[2]);
const context = withAuthorities(tls, pairs.file.cert);
const verdicts = [];
for (const name of ['system', 'file', 'stranger']) {
  const server = tls.createServer({ key: pairs[name].key, cert: pairs[name].cert }, (s) => s.end());
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  verdicts.push(await new Promise((resolve) => {
    const socket = tls.connect({ host: '127.0.0.1', port: server.address().port, secureContext: context }, () => { resolve(name + ': trusted'); socket.destroy(); });
    socket.on('error', (e) => resolve(name + ': ' + e.code));
  }));
  server.close();
}
console.log(JSON.stringify(verdicts));`,
    );
    const out = execFileSync(process.execPath, ['--use-openssl-ca', script, JSON.stringify({ system, file, stranger })], {
      env: { ...process.env, SSL_CERT_FILE: roots, NODE_EXTRA_CA_CERTS: '' },
      encoding: 'utf8',
    });
    expect(JSON.parse(out)).toEqual(['system: trusted', 'file: trusted', 'stranger: DEPTH_ZERO_SELF_SIGNED_CERT']);
  });
});
