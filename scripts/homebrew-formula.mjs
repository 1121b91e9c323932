// Prints the Homebrew formula (packaging/homebrew/tally.rb) for a packed tarball of tally: its
// version, its address on the registry and its SHA-256, in the formula as it is kept. The
// release runs it on the tarball the registry serves once published and attaches the result;
// `node scripts/homebrew-formula.mjs PACKAGE.tgz > packaging/homebrew/tally.rb` keeps the tap's.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

const tarball = process.argv[2];
if (!tarball) {
  process.stderr.write('usage: node scripts/homebrew-formula.mjs PACKAGE.tgz\n');
  process.exit(2);
}
const bytes = readFileSync(tarball);
const pkg = JSON.parse(execFileSync('tar', ['-xzOf', tarball, 'package/package.json']).toString('utf8'));
if (!/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/.test(pkg.version) || !/^[a-z0-9-]+$/.test(pkg.name)) throw new Error(`${tarball} is not a package of tally (${pkg.name}@${pkg.version})`);
const formula = readFileSync(new URL('../packaging/homebrew/tally.rb', import.meta.url), 'utf8');
if (!/^  url ".*"$/m.test(formula) || !/^  sha256 ".*"$/m.test(formula)) throw new Error('packaging/homebrew/tally.rb has no url and sha256 lines to write');
const written = formula
  .replace(/^  url ".*"$/m, `  url "https://registry.npmjs.org/${pkg.name}/-/${pkg.name}-${pkg.version}.tgz"`)
  .replace(/^  sha256 ".*"$/m, `  sha256 "${createHash('sha256').update(bytes).digest('hex')}"`);
process.stdout.write(written);
