// Entry point. `--version` is answered before anything else loads: start-up is part of the product.
export async function main(argv: string[]): Promise<number> {
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
    process.stdout.write(`${__TALLY_VERSION__}\n`);
    return 0;
  }
  const { runCli } = await import('./cli.js');
  return runCli(argv);
}
