// What a command is to the CLI: the module it loads, and its entry in the registry.
import type { Command } from 'commander';
import type { Context } from '../context.js';

export interface CommandModule {
  /** Adds the command's own flags and arguments. */
  configure(command: Command): void;
  /** `given(name)`: whether the flag was on the command line (not a default). */
  run(options: Record<string, unknown>, ctx: Context, args: string[], given?: (name: string) => boolean): Promise<void>;
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
  /** Runs --all-profiles itself (one document for every profile), rather than once per profile in the fleet's table. */
  ownFleet?: true;
  load: () => Promise<CommandModule>;
}
