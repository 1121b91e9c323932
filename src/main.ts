// Entry point of the full program (dist/main.cjs). The launcher (bin/load-bundle.cjs) has already
// tried the fast answers of dist/fast.cjs (see fast.ts) when it calls main; main tries them too,
// for callers without the launcher, and answers completion without a saved spec.
import { answerFast, savedSpecFile } from './fast.js';

export async function main(argv: string[], { triedFast = false } = {}): Promise<number> {
  if (!triedFast && (await answerFast(argv, savedSpecFile, (text) => void process.stdout.write(text)))) return 0;
  if (argv[0] === 'complete' && argv[1] === '--') {
    // No saved spec (running from the sources): work it out from the commands themselves.
    const [{ answerCompletion }, { buildSpec }] = await Promise.all([import('./completion/complete.js'), import('./completion/spec.js')]);
    await answerCompletion(argv.slice(2), process.env, await buildSpec());
    return 0;
  }
  const { runCli } = await import('./cli.js');
  return runCli(argv);
}

/** The completion spec (the build writes it to dist/completion.json). */
export async function completionSpec(): Promise<unknown> {
  const { buildSpec } = await import('./completion/spec.js');
  return buildSpec();
}
