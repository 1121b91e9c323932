// npm run docs: the command reference generated from the commands' definitions (src/manual/):
// docs/commands/NAME.md, one page a command, their index, and the man page man/tally.1.
// `npm run docs -- --check` writes nothing and exits 1 naming each file that is not current (CI
// runs it through the test suite: test/e2e/manual.test.ts).
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const check = process.argv.includes('--check');
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const launcher = createRequire(import.meta.url)('../bin/load-bundle.cjs');
const program = launcher.load();
const manual = await program.manual(version);

const files = new Map();
const fileOf = (name) => `docs/commands/${name.replace(/ /g, '-')}.md`;
for (const { name, markdown } of manual.commands) files.set(fileOf(name), markdown);
files.set(
  'docs/commands/README.md',
  [
    '# Command reference',
    '',
    "<!-- Generated from the commands' definitions by `npm run docs`: edit src/, not this file. -->",
    '',
    'One page a command: synopsis, options with their defaults, examples, exit codes and the schema of its `--json`. The topics of the manual are one folder up ([docs/](../README.md)); `tally help TOPIC` prints each.',
    '',
    ...manual.commands.map(({ name, markdown }) => `- [\`tally ${name}\`](${name.replace(/ /g, '-')}.md): ${markdown.split('\n')[2].replace(/\.$/, '')}`),
    '',
  ].join('\n'),
);
files.set('man/tally.1', manual.man);

const stale = [];
for (const [file, text] of files) {
  const path = join(root, file);
  const current = existsSync(path) ? readFileSync(path, 'utf8') : undefined;
  if (current === text) continue;
  stale.push(file);
  if (!check) {
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, text);
  }
}
// A page of a command that is gone.
for (const name of existsSync(join(root, 'docs/commands')) ? readdirSync(join(root, 'docs/commands')) : []) {
  const file = `docs/commands/${name}`;
  if (files.has(file)) continue;
  stale.push(file);
  if (!check) rmSync(join(root, file));
}
if (check && stale.length) {
  console.error(`npm run docs: not current (run npm run docs and commit): ${stale.join(', ')}`);
  process.exit(1);
}
if (!check) console.log(stale.length ? `npm run docs: wrote ${stale.join(', ')}` : 'npm run docs: every generated file is current');
