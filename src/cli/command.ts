// What a command is to the CLI: the module it loads, and its entry in the registry.
import type { Command } from 'commander';
import type { Context } from '../context.js';
import type { FleetRow } from '../output/fleet.js';
import { type FlagSpecs, addFlags } from '../flags/declare.js';

/** What a command line holds besides the command's own flags. */
export interface CommandLine {
  /** The command's words (arguments). */
  args: string[];
  /** Whether the flag was on the command line (not a default). */
  given(name: string): boolean;
  /** The output the global flags chose (--json, --csv, --jq, --exact, --wide). */
  output: { json: boolean; csv: boolean; jq: boolean; exact: boolean; wide: boolean };
  /** Whether it runs across profiles (--all-profiles or --profiles). */
  profiles: boolean;
}

// Methods (not function-typed fields): a module of any request type is a CommandModule.
export interface CommandModule<Request = unknown> {
  /** The command's own flags, declared once (flags/declare.ts): its options, help, manual and completion come from them, and `parse` reads them typed. */
  flags?: FlagSpecs;
  /** Adds what is not a declared flag: the command's words (arguments), its subcommands. */
  configure?(command: Command): void;
  /**
   * The command line as the command's typed request: a pure function (no context; nothing read
   * or asked), so a flag or word that cannot be is a UsageError before anything is asked, and
   * each rule has a test without a gateway (test/commands/requests.test.ts).
   */
  parse(flags: Record<string, unknown>, line: CommandLine): Request;
  /** Answers the request: asks its figures and hands them to output/. */
  run(request: Request, ctx: Context): Promise<void>;
  /** Its row in the fleet's table, for a command the registry runs in rows (`fleet: 'rows'`): defined beside its view. */
  fleetRow?: FleetRow<unknown>;
}

/** The request of a command whose flags change nothing it asks (its words are its own, or none). */
export type NoRequest = Record<string, never>;

export function noRequest(): NoRequest {
  return {};
}

/** The output flags of a context, as a command line states them. */
export function outputOf(options: Context['options']): CommandLine['output'] {
  return { json: options.json === true, csv: options.csv === true, jq: options.jq !== undefined, exact: options.exact === true, wide: options.wide === true };
}

/** A command's definition on its commander command: its declared flags, then what configure adds (its words). */
export function defineOn(command: Command, module: Pick<CommandModule, 'flags' | 'configure'>): void {
  if (module.flags) addFlags(command, module.flags);
  module.configure?.(command);
}

/** Runs a command module on its command line: the request parsed, then the run. */
export function runModule(module: CommandModule, flags: Record<string, unknown>, ctx: Context, line: Pick<CommandLine, 'args' | 'given'>): Promise<void> {
  const profiles = ctx.options.allProfiles === true || ctx.options.profiles !== undefined;
  return module.run(module.parse(flags, { ...line, output: outputOf(ctx.options), profiles }), ctx);
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
   * table (fleet.ts; the columns are its module's `fleetRow`); `lines`, likewise with a line of
   * text each; `own`, it runs across profiles itself (one document for every profile); absent,
   * the command runs for one profile and the flags are refused.
   */
  fleet?: 'rows' | 'lines' | 'own';
  /**
   * Its exit 5 says a gate failed: across profiles the exit is 5 when any profile's is, and its
   * reports (--junit, --markdown) are written once, with every profile's conditions.
   */
  gates?: true;
  /** An agent's hook (Claude Code's): its exit 2 blocks the agent, so its own usage errors exit 1. */
  hook?: true;
  load: () => Promise<CommandModule>;
}
