// The answers a shell asks for many times a minute: `--version`, a statusline from its cache and
// shell completion. The build bundles this file on its own (dist/fast.cjs, a few kB), and the
// launcher runs it before it loads the command line: start-up is part of the product. Whatever
// this cannot answer (a stale flag, no cache, no saved completion spec) goes to the full program.

/**
 * How the run was answered here: 'write' when everything went through `write`, 'streams' when
 * through process.stdout too (completion prints with console.log), { exit } for an answer that is
 * an exit code (the guard's: 0 goes on, 2 blocks, its reason through `writeErr`); false sends it
 * to the full program.
 */
export async function answerFast(argv: string[], savedSpec: boolean, write: (text: string) => void, writeErr: (text: string) => void = (text) => process.stderr.write(text)): Promise<'write' | 'streams' | false | { exit: number }> {
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
    write(`${__TALLY_VERSION__}\n`);
    return 'write';
  }
  // A prompt runs the statusline on every line: from a fresh cache it answers at once.
  if (argv[0] === 'statusline') {
    const { statuslineFromCache } = await import('../statusline/fast.js');
    return (await statuslineFromCache(argv, process.env, write)) && 'write';
  }
  // An agent's hook runs the guard before every tool call: from fresh caches it decides at once.
  if (argv[0] === 'guard') {
    const { guardFromCache } = await import('../statusline/fast-guard.js');
    const code = await guardFromCache(argv, process.env, writeErr);
    return code === undefined ? false : { exit: code };
  }
  // What the shell completion scripts ask at every Tab, from the spec the build saved.
  // (whatif --swap's models come from the catalog cache: the full program answers that one.)
  if (argv[0] === 'complete' && argv[1] === '--' && savedSpec && argv[argv.length - 2] !== '--swap') {
    const { answerCompletion, readSavedSpec } = await import('../completion/complete.js');
    const spec = readSavedSpec();
    if (!spec) return false;
    await answerCompletion(argv.slice(2), process.env, spec);
    return 'streams';
  }
  return false;
}

/** Whether this runs as built (a bundle, with the completion spec the build saved beside it), not from the sources. */
export const bundled = typeof __dirname === 'string';
