// Builds the program, runs one command, and turns every error into its exit code (cli/report.ts,
// the only place that chooses an exit code or prints an error).
import type { Command } from 'commander';
import { COMMANDS, fleetRows } from './registry.js';
import { Context, type ContextInit, type GlobalOptions, type RunnableCommand } from '../context.js';
import { Interrupted, OutputError, QuietExit, UsageError } from '../errors.js';
import { type IO, createProcessIO, redactingIO } from '../io.js';
import { SecretSet, environmentSecrets } from '../domain/secrets.js';
import { notAZone, parseZone } from '../domain/zone.js';
import { report } from './report.js';
import { type CommandEntry, type CommandModule, defineOn, runModule } from './command.js';
import { GLOBAL_FLAGS } from '../flags/global-flags.js';
import { addFlags } from '../flags/declare.js';
import { asksOwnHelp, commandPath, isWanted } from './words.js';
import { type SimpleLine, readSimpleLine } from '../flags/simple-line.js';

export interface CliDeps extends Partial<Omit<ContextInit, 'options' | 'io'>> {
  io?: IO;
}

export async function runCli(argv: string[], deps: CliDeps = {}): Promise<number> {
  const interrupt = new AbortController();
  const standalone = deps.io === undefined;
  let ctx: Context | undefined;
  const onSigint = () => {
    // A command that runs another (`tally run`) passes Ctrl-C on to it and ends when it ends.
    if (ctx?.signalsHeld) return;
    if (interrupt.signal.aborted) process.exit(130);
    interrupt.abort(new Interrupted('interrupted'));
  };
  if (standalone) process.on('SIGINT', onSigint);
  const env = deps.env ?? process.env;
  // Every secret of the run, known from the start (the environment's) or as it is read (a stored
  // key, a device token): whatever leaves the process is scrubbed of them.
  const secrets = new SecretSet();
  for (const secret of environmentSecrets(env)) secrets.add(secret);
  const raw = deps.io ?? createProcessIO({ noColorFlag: argv.includes('--no-color') });
  const io = redactingIO(raw, secrets);
  // What writing the answer needs (stdout's stream, the secrets' forms), made on the event loop's
  // first turn: a command that asks the gateway has its first request on its way by then, and the
  // wait for the answer pays for them (1-2 ms of a start).
  const preparing = setImmediate(() => {
    raw.prepare?.();
    secrets.prepare();
  });
  const wantsJson = argv.includes('--json') || argv.includes('--jq');
  const wantsDebug = argv.includes('--debug');
  // `tally help TOPIC`: a topic of the manual (docs/TOPIC.md, shipped), where TOPIC names no command.
  if (argv[0] === 'help' && argv.length === 2 && !COMMANDS.some((c) => c.name.split(' ')[0] === argv[1])) {
    const { helpTopic } = await import('../manual/help.js');
    const answer = helpTopic(argv[1]!);
    if (answer.ok) {
      io.out(answer.text);
      return 0;
    }
    if (answer.text) {
      io.err(answer.text);
      return 2;
    }
  }
  try {
    const makeContext = (options: GlobalOptions) => {
      // A command line run inside this one (a tool of `tally mcp`) runs with this run's global
      // options (the gateway, the key's source, the zone, --demo's gateway), changed only where asked.
      const commandLine = (line: string[], lineIO: IO, signal: AbortSignal, overrides: Partial<GlobalOptions> = {}) =>
        runCli([...globalFlags({ ...options, ...overrides }), ...line], { ...deps, io: lineIO, env, interrupt: signal, ...(ctx ? { transport: ctx.transport(), ...(options.demo ? { demoGateway: ctx.demoGateway() } : {}) } : {}) });
      ctx = new Context({ command: loadCommand, commandLine, ...deps, io, options, env, secrets, interrupt: deps.interrupt ?? interrupt.signal });
      return ctx;
    };
    // A plain line of a command is read without commander (flags/simple-line.ts); any other, by the program commander builds.
    if (!(await runSimpleLine(argv, makeContext))) await (await buildProgram(argv, io, (entry, module, line) => runEntry(argv, entry, module, line, makeContext))).parseAsync(argv, { from: 'user' });
    await outputWritten(raw);
    return 0;
  } catch (error) {
    const code = report(error, io, { json: wantsJson, debug: wantsDebug, secrets });
    // To an agent, a hook's exit 2 is a block: a hook's own mistakes (a flag it does not know) exit 1.
    const hook = COMMANDS.some((c) => c.hook && c.name === commandPath(argv)[0]);
    return code === 2 && !(error instanceof QuietExit) && hook ? 1 : code;
  } finally {
    clearImmediate(preparing);
    await ctx?.dispose();
    if (standalone) process.off('SIGINT', onSigint);
  }
}

/** A command by its name in the registry, loaded when first run, and run as the CLI runs it (its flags parsed first; none typed). */
async function loadCommand(name: string): Promise<RunnableCommand> {
  const entry = COMMANDS.find((c) => c.name === name);
  if (!entry) throw new Error(`there is no command "${name}"`);
  const module = await entry.load();
  return { run: (flags, ctx, args = []) => runModule(module, flags, ctx, { args, given: () => false }) };
}

const EXIT_CODES = "Exit codes: 0 ok, 1 service error, 2 usage, 3 auth, 4 rate limited, 5 check failed (run: stopped past the limit), 130 interrupted; tally run otherwise exits with its command's code.";

/** The manual's topics, named in the program's help. */
async function topicsLine(): Promise<string> {
  const { TOPICS } = await import('../manual/topics.js');
  return `Topics of the manual (tally help TOPIC): ${TOPICS.map((t) => t.name).join(', ')}.`;
}

/** A command line as read, by commander or without it (flags/simple-line.ts): what a command's run takes from it. */
export interface ReadLine {
  /** The program's flags (commander's optsWithGlobals). */
  globals: Record<string, unknown>;
  /** The command's own flags. */
  flags: Record<string, unknown>;
  given(name: string): boolean;
  args: string[];
  /** Commander's command, where commander read the line (the loop over profiles runs it again per profile). */
  command?: Command;
}

type OnLine = (entry: CommandEntry, module: CommandModule, line: ReadLine) => Promise<void>;

/**
 * A plain line of one command (no words of its own, no subcommands) read without loading
 * commander, and run; false, with nothing done, for any line it does not read (commander does).
 */
async function runSimpleLine(argv: string[], makeContext: (options: GlobalOptions) => Context): Promise<boolean> {
  // Help (--help, -h, `help`) is a flag or a word readSimpleLine leaves to commander.
  const entry = runningEntry(commandPath(argv));
  if (!entry || entry.name.includes(' ')) return false;
  const module = await entry.load();
  if (module.configure) return false;
  const line = readSimpleLine(argv, entry.name, GLOBAL_FLAGS, module.flags ?? {});
  // A line across profiles runs per profile through commander's command (fleet.ts).
  if (!line || line.globals.allProfiles === true || line.globals.profiles !== undefined) return false;
  await runEntry(argv, entry, module, simpleLine(line), makeContext);
  return true;
}

function simpleLine(line: SimpleLine): ReadLine {
  return { globals: line.globals, flags: line.flags, given: (name) => line.given.has(name), args: [] };
}

/** Runs a command on its line: the global options checked, the context made, then the command (or the loop over profiles). */
async function runEntry(argv: string[], entry: CommandEntry, module: CommandModule, line: ReadLine, makeContext: (options: GlobalOptions) => Context): Promise<void> {
  const options = globalOptions(line.globals);
  options.timeoutGiven = argv.some((word) => word === '--timeout' || word.startsWith('--timeout='));
  checkGlobalOptions(entry, options);
  const ctx = makeContext(options);
  // A display currency (--currency, or the profile's): its flags checked now, its dated rate asked before the first result is written.
  if (options.currency !== undefined || options.rate !== undefined) (await import('./display.js')).checkDisplayFlags(options);
  ctx.beforeOutput = async () => (await import('./display.js')).applyDisplayCurrency(ctx);
  if ((options.allProfiles || options.profiles !== undefined) && entry.fleet !== 'own') {
    const { runFleet } = await import('../fleet.js');
    // Only commander reads a line across profiles (flags/simple-line.ts leaves --all-profiles and --profiles to it).
    if (!line.command) throw new Error('a line across profiles is read by commander');
    return runFleet(entry, module, line.command, ctx, fleetRows());
  }
  await runModule(module, line.flags, ctx, { args: line.args, given: line.given });
}

/**
 * A command line as commander reads it, run by nothing: what flags/simple-line.ts is held to
 * (test/flags/simple-line.test.ts). Throws commander's error for a line it refuses.
 */
export async function commanderLine(argv: string[], io: IO): Promise<ReadLine | undefined> {
  let read: ReadLine | undefined;
  await (await buildProgram(argv, io, async (_entry, _module, line) => void (read = line))).parseAsync(argv, { from: 'user' });
  return read;
}

async function buildProgram(argv: string[], io: IO, onLine: OnLine): Promise<Command> {
  // Loaded only for a line flags/simple-line.ts does not read (help, a mistake, words, subcommands).
  const { Command } = await import('commander');
  const helpWidth = io.stdoutIsTTY ? io.width : 80;
  const asksHelp = argv.includes('--help') || argv.includes('-h') || argv[0] === 'help';
  // Help text after the options: examples and exit codes, wrapped to the terminal (wrap-ansi loads only if a line is too long).
  const after = async (text: string) => {
    if (!asksHelp) return text;
    const { fitLines } = await import('../output/wrap.js');
    return fitLines(text, helpWidth);
  };
  const wanted = commandPath(argv);
  const running = runningEntry(wanted);
  // A command's own help describes that command alone (its bundle gives it: bin/run.cjs route).
  const ownHelp = asksHelp && asksOwnHelp(argv, running);
  const program = new Command('tally')
    .description('See what you spend on an LLM inference gateway: balance, limits, usage, models, prices.')
    .version(__TALLY_VERSION__, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .configureHelp({ showGlobalOptions: true, helpWidth });
  addFlags(program, GLOBAL_FLAGS);
  // The program's own help text (every command's example, the manual's topics), where the program's help may be shown.
  if (!ownHelp) program.addHelpText('after', `\n${await after(`Examples:\n${COMMANDS.map((c) => `  $ ${c.example}`).join('\n')}\n\n${EXIT_CODES}${asksHelp ? `\n\n${await topicsLine()}` : ''}`)}\n`);

  throughIO(program, io, 'tally');
  // Running a known command, or showing its own help, needs only that command; the program's help and mistakes need them all.
  const needed = running && (!asksHelp || ownHelp) ? [running] : COMMANDS;
  const groups = new Map<string, Command>();
  for (const entry of needed) {
    const [first, second] = entry.name.split(' ') as [string, string | undefined];
    let parent = program;
    if (second) {
      parent = groups.get(first) ?? program.command(first).description(`${first} commands`);
      throughIO(parent, io, `tally ${first}`);
      groups.set(first, parent);
    }
    const command = parent
      .command(second ?? first)
      .description(entry.summary)
      .addHelpText('after', `\n${await after(`Examples:\n${[entry.example, ...(entry.more ?? [])].map((e) => `  $ ${e}`).join('\n')}\n\n${EXIT_CODES}`)}\n`);
    throughIO(command, io, `tally ${entry.name}`);
    if (isWanted(entry, wanted)) {
      const module = await entry.load();
      defineOn(command, module);
      command.action(async (...args: unknown[]) => {
        const self = args[args.length - 1] as Command;
        await onLine(entry, module, { globals: self.optsWithGlobals(), flags: self.opts(), given: (name) => self.getOptionValueSource(name) === 'cli', args: self.args, command: self });
      });
    } else {
      command.allowUnknownOption().allowExcessArguments();
    }
  }
  return program;
}

/**
 * The whole program with every command's flags (what shell completion describes); nothing runs.
 * It loads every command module, so only completion asks for it.
 */
export async function fullProgram(io: IO): Promise<Command> {
  const program = await buildProgram(['--help'], io, async () => {
    throw new Error('the full program describes commands; it runs none');
  });
  const byName = commandsByName(program);
  for (const entry of COMMANDS) {
    const command = byName.get(entry.name);
    if (command) {
      const module = await entry.load();
      defineOn(command, module);
    }
  }
  return program;
}

/** Each command of a program by its full name (`auth status`). */
function commandsByName(program: Command): Map<string, Command> {
  const byName = new Map<string, Command>();
  const walk = (command: Command, path: string) => {
    for (const child of command.commands) {
      const name = path ? `${path} ${child.name()}` : child.name();
      byName.set(name, child);
      walk(child, name);
    }
  };
  walk(program, '');
  return byName;
}

/** The whole program and the registry's entries, for the manual (src/cli/manual.ts). */
export async function describedProgram(io: IO): Promise<{ program: Command; entries: readonly CommandEntry[]; byName: Map<string, Command> }> {
  const program = await fullProgram(io);
  return { program, entries: COMMANDS, byName: commandsByName(program) };
}

/** Global options that do not fit the command or each other: said before anything is asked of the service. */
function checkGlobalOptions(entry: CommandEntry, options: GlobalOptions): void {
  if (options.tz !== undefined && !parseZone(options.tz)) throw notAZone('--tz', options.tz);
  if (options.csv && !entry.tabular) {
    throw new UsageError(`--csv is for the commands that list records (${COMMANDS.filter((c) => c.tabular).map((c) => c.name).join(', ')}); ${entry.name} prints no table of records`);
  }
  if (options.csv && options.json) throw new UsageError(`--csv and --json${options.jq !== undefined ? ' (or --jq)' : ''} each print the whole result; choose one`);
  for (const flag of ['wide', 'exact'] as const) {
    if (options[flag] && (options.json || options.csv)) {
      throw new UsageError(`--${flag} shapes tables for people; --${options.csv ? 'csv' : 'json'} always prints every field exactly as sent`);
    }
  }
}

/** Commander writes through tally's streams and throws instead of exiting; report() prints errors. */
function throughIO(command: Command, io: IO, path: string): void {
  command
    .exitOverride((error) => {
      // Words past what a command takes are named: a split Action input or a stray value is found at once.
      const extra = error.code === 'commander.excessArguments' ? command.args.slice(command.registeredArguments.length) : undefined;
      throw Object.assign(error, { commandPath: path, extra });
    })
    .configureOutput({ writeOut: (text) => io.out(text), writeErr: (text) => io.err(text), outputError: () => undefined });
}

/** The registry's entry the command words name, if any. */
function runningEntry(words: string[]): CommandEntry | undefined {
  return COMMANDS.find((entry) => isWanted(entry, words));
}

function globalOptions(raw: Record<string, unknown>): GlobalOptions {
  const jq = typeof raw.jq === 'string' ? raw.jq : undefined;
  return {
    json: raw.json === true || jq !== undefined,
    jq,
    csv: raw.csv === true,
    wide: raw.wide === true,
    exact: raw.exact === true,
    timeout: parseTimeout(String(raw.timeout ?? '30')),
    debug: raw.debug === true,
    profile: typeof raw.profile === 'string' ? raw.profile : undefined,
    baseUrl: typeof raw.baseUrl === 'string' ? raw.baseUrl : undefined,
    demo: raw.demo === true,
    allowHttp: raw.allowHttp === true,
    noPager: raw.pager === false,
    tz: typeof raw.tz === 'string' ? raw.tz : undefined,
    allProfiles: raw.allProfiles === true,
    profiles: typeof raw.profiles === 'string' ? raw.profiles : undefined,
    ...(typeof raw.currency === 'string' ? { currency: raw.currency } : {}),
    ...(typeof raw.rate === 'string' ? { rate: raw.rate } : {}),
  };
}

/**
 * The command-line words that give `options` again (globalOptions of them is `options`): how a
 * command run inside another inherits its global options. Every option is decided here, so a new
 * one cannot be forgotten: those a nested run takes, and those that belong to the outer run.
 */
export function globalFlags(options: GlobalOptions): string[] {
  const value = (flag: string, given: string | undefined) => (given === undefined ? [] : [`${flag}=${given}`]);
  const flag = (name: string, on: boolean | undefined) => (on ? [name] : []);
  const words: Record<keyof GlobalOptions, string[]> = {
    timeout: [`--timeout=${options.timeout}`],
    debug: flag('--debug', options.debug),
    profile: value('--profile', options.profile),
    baseUrl: value('--base-url', options.baseUrl),
    demo: flag('--demo', options.demo),
    allowHttp: flag('--allow-http', options.allowHttp),
    tz: value('--tz', options.tz),
    noPager: flag('--no-pager', options.noPager),
    allProfiles: flag('--all-profiles', options.allProfiles),
    profiles: value('--profiles', options.profiles),
    currency: value('--currency', options.currency),
    rate: value('--rate', options.rate),
    // How the outer run prints is its own: the nested command line says its own format.
    json: [],
    jq: [],
    csv: [],
    wide: [],
    exact: [],
    // Derived from the words (timeoutGiven) or set by the code that runs a fleet (patient).
    timeoutGiven: [],
    patient: [],
  };
  return Object.values(words).flat();
}

export function parseTimeout(text: string): number {
  const seconds = /^\d+(?:\.\d+)?$/.test(text.trim()) ? Number(text) : Number.NaN;
  if (!Number.isFinite(seconds)) throw new UsageError(`--timeout "${text}" is not a number of seconds (e.g. 30 or 2.5)`);
  if (seconds <= 0) throw new UsageError(`--timeout must be more than 0 seconds (got "${text}")`);
  if (seconds > 86_400) throw new UsageError(`--timeout must be at most 86400 seconds, one day (got "${text}")`);
  return seconds;
}

/**
 * Throws when results could not be written (a full disk): a failed write to a file is reported
 * by the stream a moment after the write, so one turn of the event loop is waited for.
 */
async function outputWritten(io: IO): Promise<void> {
  if (!io.outputFailure) return;
  await new Promise((resolve) => setImmediate(resolve));
  const failure = io.outputFailure();
  if (!failure) return;
  const reason = failure.code === 'ENOSPC' ? 'no space left on the device' : failure.code === 'EDQUOT' ? 'the disk quota is used up' : failure.code === 'EIO' ? 'an input/output error' : failure.message;
  throw new OutputError(`could not write the results to standard output: ${reason}`);
}
