// The manual as the tests read it: the README and every page of docs/ (the topics and the
// generated command pages), so a block a test checks may live in whichever page explains it.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** Each page of the manual: its path from the repository's root and its text. */
export function manualPages(): { path: string; text: string }[] {
  const pages = [{ path: 'README.md', text: readFileSync(join(root, 'README.md'), 'utf8') }];
  for (const folder of ['docs', 'docs/commands']) {
    for (const name of readdirSync(join(root, folder)).filter((f) => f.endsWith('.md')).sort()) pages.push({ path: `${folder}/${name}`, text: readFileSync(join(root, folder, name), 'utf8') });
  }
  return pages;
}

/** The whole manual as one text. */
export function manualText(): string {
  return manualPages().map((p) => p.text).join('\n');
}
