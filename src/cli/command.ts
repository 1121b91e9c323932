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
  /**
   * What --all-profiles (--profiles) does: `rows`, the command runs once per profile in the fleet's
   * table (fleet.ts); `own`, it runs across profiles itself (one document for every profile);
   * absent, the command runs for one profile and the flags are refused.
   */
  fleet?: 'rows' | 'own';
  load: () => Promise<CommandModule>;
}
