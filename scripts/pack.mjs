// npm pack and npm publish: `prepack` builds dist/ and takes the checkout's own `prepare` (the
// build on a checkout's `npm install`) out of the package.json that is packed, so that installing
// the package runs no script of ours; `postpack` puts it back. (pinst does the same for a
// postinstall; this is the two lines of it tally needs.)
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';

const saved = '.package.json.before-pack';
const step = process.argv[2];
if (step === 'prepack') {
  // A checkout builds dist/ first; a copy of a built checkout without its sources packs it as built.
  if (existsSync('src')) execFileSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' });
  const text = readFileSync('package.json', 'utf8');
  const pkg = JSON.parse(text);
  writeFileSync(saved, text);
  delete pkg.scripts.prepare;
  writeFileSync('package.json', `${JSON.stringify(pkg, null, 2)}\n`);
} else if (step === 'postpack') {
  if (existsSync(saved)) renameSync(saved, 'package.json');
} else {
  throw new Error('scripts/pack.mjs prepack|postpack');
}
