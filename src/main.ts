// Entry point. `--version`, a statusline from its cache and shell completion are answered before
// the command-line machinery loads: start-up is part of the product.
export async function main(argv: string[]): Promise<number> {
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
    process.stdout.write(`${__TALLY_VERSION__}\n`);
    return 0;
  }
  // A prompt runs the statusline on every line: from a fresh cache it answers before the CLI loads.
  if (argv[0] === 'statusline') {
    const { statuslineFromCache } = await import('./statusline/fast.js');
    if (await statuslineFromCache(argv, process.env, (text) => process.stdout.write(text))) return 0;
  }
  // What the shell completion scripts ask at every Tab (see completion/complete.ts).
  if (argv[0] === 'complete' && argv[1] === '--') {
    const { answerCompletion } = await import('./completion/complete.js');
    // The build saves the completion spec beside the bundle (dist/completion.json).
    await answerCompletion(argv.slice(2), process.env, typeof __dirname === 'string' ? `${__dirname}/completion.json` : undefined);
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
