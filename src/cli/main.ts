// Entry point of the full program (dist/main.cjs). The launcher (bin/load-bundle.cjs) has already
// tried the fast answers of dist/fast.cjs (see fast.ts) when it calls main; main tries them too,
// for callers without the launcher, and answers completion without a saved spec.
import { answerFast, bundled } from './fast.js';

export async function main(argv: string[], { triedFast = false } = {}): Promise<number> {
  if (!triedFast && (await answerFast(argv, bundled, (text) => void process.stdout.write(text)))) return 0;
  if (argv[0] === 'complete' && argv[1] === '--') {
    // The saved spec, or (running from the sources) one worked out from the commands themselves;
    // whatif --swap's models from the cached catalog.
    const [{ answerCompletion, readSavedSpec }, { buildSpec }, models] = await Promise.all([import('../completion/complete.js'), import('./completion-spec.js'), import('../completion/models.js')]);
    const words = argv.slice(2);
    const spec = (bundled && readSavedSpec()) || (await buildSpec());
    await answerCompletion(words, process.env, spec, models.wantsModelNames(words) ? { models: await models.cachedModelNames(words, process.env) } : {});
    return 0;
  }
  const { runCli } = await import('./program.js');
  return runCli(argv);
}

/** The completion spec (the build writes it to dist/completion.json). */
export async function completionSpec(): Promise<unknown> {
  const { buildSpec } = await import('./completion-spec.js');
  return buildSpec();
}

/** The command reference, for the docs generator (scripts/docs.mjs): every command's page, the man page, the topics. */
export async function manual(version: string): Promise<{ commands: { name: string; markdown: string }[]; man: string; topics: readonly { name: string; title: string }[] }> {
  const [{ manualPages }, { markdownPage, manPage }, { TOPICS }] = await Promise.all([import('./manual.js'), import('../manual/reference.js'), import('../manual/topics.js')]);
  const { pages, globals } = await manualPages();
  return { commands: pages.map((page) => ({ name: page.name, markdown: markdownPage(page, globals) })), man: manPage(pages, globals, TOPICS, version), topics: TOPICS };
}
