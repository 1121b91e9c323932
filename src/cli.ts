// Builds the program, runs one command, and turns every error into its exit code. This is the
// only place that chooses an exit code or prints an error.
import { Command, CommanderError, Option } from 'commander';
import { COMMANDS, type CommandEntry } from './commands/registry.js';
import { Context, type ContextInit, type GlobalOptions } from './context.js';
import { Interrupted, TallyError, UsageError } from './errors.js';
import { type IO, createProcessIO } from './io.js';
import { redact } from './domain/secrets.js';
import { escapeControl } from './output/escape.js';

/** Options of the whole program that take a value (needed to find the command name). */
const VALUE_OPTIONS = new Set(['--profile', '--base-url', '--timeout']);

export interface CliDeps extends Partial<Omit<ContextInit, 'options' | 'io'>> {
  io?: IO;
}

export async function runCli(argv: string[], deps: CliDeps = {}): Promise<number> {
  const interrupt = new AbortController();
  const standalone = deps.io === undefined;
  const onSigint = () => {
    if (interrupt.signal.aborted) process.exit(130);
    interrupt.abort(new Interrupted('interrupted'));
  };
  if (standalone) process.on('SIGINT', onSigint);
  const io = deps.io ?? createProcessIO({ noColorFlag: argv.includes('--no-color') });
  let ctx: Context | undefined;
  const wantsJson = argv.includes('--json');
  const wantsDebug = argv.includes('--debug');
  try {
    const program = await buildProgram(argv, io, (options) => {
      ctx = new Context({ ...deps, io, options, env: deps.env ?? process.env, interrupt: deps.interrupt ?? interrupt.signal });
      return ctx;
    });
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (error) {
    return report(error, io, { json: wantsJson, debug: wantsDebug, secrets: secretsOf(deps.env ?? process.env) });
  } finally {
    await ctx?.dispose();
    if (standalone) process.off('SIGINT', onSigint);
  }
}

async function buildProgram(argv: string[], io: IO, makeContext: (options: GlobalOptions) => Context): Promise<Command> {
  const program = new Command('tally')
    .description('See what you spend on an LLM inference gateway: balance, limits, usage, models, prices.')
    .version(__TALLY_VERSION__, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .option('--json', 'print one JSON document on stdout')
    .option('--csv', 'print CSV (tabular commands)')
    .option('--no-color', 'no colour (also NO_COLOR; FORCE_COLOR forces it)')
    .addOption(new Option('--timeout <seconds>', 'deadline for the whole command').default('30'))
    .option('--debug', 'log each request to stderr (credentials redacted)')
    .option('--profile <name>', 'profile to use (env TALLY_PROFILE; default "default")')
    .option('--base-url <url>', 'gateway base URL (env TALLY_BASE_URL)')
    .option('--demo', 'run against the built-in sandbox gateway with a demo key')
    .option('--allow-http', 'allow plain http:// to a non-loopback host')
    .addHelpText('after', `\nExamples:\n${COMMANDS.map((c) => `  ${c.example.padEnd(70)} # ${c.name}`).join('\n')}\n\nExit codes: 0 ok, 1 service error, 2 usage, 3 auth, 4 rate limited, 5 check failed, 130 interrupted.\n`);

  throughIO(program, io);
  const wanted = commandPath(argv);
  // Running a known command needs only that command; help and mistakes need them all.
  const running = COMMANDS.find((entry) => isWanted(entry, wanted));
  const needed = running && !argv.includes('--help') && !argv.includes('-h') ? [running] : COMMANDS;
  const groups = new Map<string, Command>();
  for (const entry of needed) {
    const [first, second] = entry.name.split(' ') as [string, string | undefined];
    let parent = program;
    if (second) {
      parent = groups.get(first) ?? program.command(first).description(`${first} commands`);
      throughIO(parent, io);
      groups.set(first, parent);
    }
    const command = parent
      .command(second ?? first)
      .description(entry.summary)
      .addHelpText('after', `\nExample:\n  ${entry.example}\n`);
    throughIO(command, io);
    if (isWanted(entry, wanted)) {
      const module = await entry.load();
      module.configure(command);
      command.action(async (...args: unknown[]) => {
        const self = args[args.length - 1] as Command;
        const options = globalOptions(self.optsWithGlobals());
        // Said before anything is asked of the service.
        if (options.csv && !entry.tabular) {
          throw new UsageError(`--csv is for the tabular commands (${COMMANDS.filter((c) => c.tabular).map((c) => c.name).join(', ')}); ${entry.name} prints no table of records`);
        }
        const ctx = makeContext(options);
        await module.run(self.opts(), ctx, self.args);
      });
    } else {
      command.allowUnknownOption().allowExcessArguments();
    }
  }
  return program;
}

/** Commander writes through tally's streams and throws instead of exiting; report() prints errors. */
function throughIO(command: Command, io: IO): void {
  command.exitOverride().configureOutput({ writeOut: (text) => io.out(text), writeErr: (text) => io.err(text), outputError: () => undefined });
}

/** The command words in argv (skipping global options and their values). */
function commandPath(argv: string[]): string[] {
  const words: string[] = [];
  for (let i = 0; i < argv.length && words.length < 2; i++) {
    const token = argv[i]!;
    if (token === '--') break;
    if (token.startsWith('-')) {
      if (VALUE_OPTIONS.has(token)) i++;
      continue;
    }
    words.push(token);
  }
  return words;
}

function isWanted(entry: CommandEntry, words: string[]): boolean {
  const parts = entry.name.split(' ');
  return parts.every((part, index) => words[index] === part);
}

function globalOptions(raw: Record<string, unknown>): GlobalOptions {
  return {
    json: raw.json === true,
    csv: raw.csv === true,
    timeout: parseTimeout(String(raw.timeout ?? '30')),
    debug: raw.debug === true,
    profile: typeof raw.profile === 'string' ? raw.profile : undefined,
    baseUrl: typeof raw.baseUrl === 'string' ? raw.baseUrl : undefined,
    demo: raw.demo === true,
    allowHttp: raw.allowHttp === true,
  };
}

export function parseTimeout(text: string): number {
  const seconds = /^\d+(?:\.\d+)?$/.test(text) ? Number(text) : NaN;
  if (!Number.isFinite(seconds) || seconds <= 0 || seconds > 86_400) {
    throw new UsageError(`--timeout "${text}" is not a number of seconds between 0 and 86400`);
  }
  return seconds;
}

function secretsOf(env: NodeJS.ProcessEnv): string[] {
  return [env.TALLY_API_KEY].filter((s): s is string => Boolean(s));
}

function report(error: unknown, io: IO, how: { json: boolean; debug: boolean; secrets: string[] }): number {
  if (error instanceof CommanderError) {
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help') return 0;
    if (error.code === 'commander.executeSubCommandAsync') return 0;
    error = new UsageError(`${error.message.replace(/^error: /, '')} (see \`tally --help\`)`);
  }
  const known = error instanceof TallyError ? error : undefined;
  const exitCode = known?.exitCode ?? 1;
  const raw = known ? known.message : `internal error: ${error instanceof Error ? error.message : String(error)}`;
  const message = escapeControl(redact(raw, how.secrets));
  if (how.json) {
    const body: Record<string, unknown> = { kind: known?.kind ?? 'internal', message };
    if (known?.status !== undefined) body.status = known.status;
    io.err(`${JSON.stringify({ error: body })}\n`);
  } else {
    io.err(`tally: ${message}\n`);
  }
  if (how.debug && error instanceof Error && error.stack) io.err(`${redact(error.stack, how.secrets)}\n`);
  else if (!known) io.err('(run with --debug for details)\n');
  return exitCode;
}
