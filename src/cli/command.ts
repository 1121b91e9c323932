// What a command is to the CLI: the module it loads, and its entry in the registry.
import type { Command } from 'commander';
import type { Context } from '../context.js';

/** What a command line holds besides the command's own flags. */
export interface CommandLine {
  /** The command's words (arguments). */
  args: string[];
  /** Whether the flag was on the command line (not a default). */
  given(name: string): boolean;
  /** The output the global flags chose. */
  output: { json: boolean; csv: boolean };
}

export interface CommandModule {
  /** Adds the command's own flags and arguments. */
  configure(command: Command): void;
  /**
   * The flags as the command's typed request: a pure function (no context; nothing read or
   * asked), so a flag that cannot be is a UsageError before anything is asked, and each rule has
   * a test without a gateway (test/commands/requests.test.ts). A command without one gets its flags.
   */
  parse?(flags: Record<string, unknown>, line: CommandLine): unknown;
  /** The request (`parse`'s, else the flags); `given(name)`: whether the flag was on the command line. */
  run(request: never, ctx: Context, args: string[], given?: (name: string) => boolean): Promise<void>;
}

/** Runs a command module on its command line: the request parsed (where it parses one), then the run. */
export function runModule(module: CommandModule, flags: Record<string, unknown>, ctx: Context, line: Omit<CommandLine, 'output'>): Promise<void> {
  const request = module.parse ? module.parse(flags, { ...line, output: { json: ctx.options.json === true, csv: ctx.options.csv === true } }) : flags;
  return (module.run as (request: unknown, ctx: Context, args: string[], given: (name: string) => boolean) => Promise<void>)(request, ctx, line.args, line.given);
}

export interface CommandEntry {
  /** Space-separated for a subcommand of a group (`auth status`). */
  name: string;
  summary: string;
  example: string;
  /** More examples for the command's help (the first is `example`). */
  more?: string[];
  /** Prints rows: --csv applies. */
  tabular?: true;
  /**
   * What --all-profiles (--profiles) does: `rows`, the command runs once per profile in the fleet's
   * table (fleet.ts); `own`, it runs across profiles itself (one document for every profile);
   * absent, the command runs for one profile and the flags are refused.
   */
  fleet?: 'rows' | 'own';
  load: () => Promise<CommandModule>;
}
