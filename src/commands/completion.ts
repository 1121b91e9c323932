// tally completion bash|zsh|fish: a completion script for the shell. The scripts come from
// @bomb.sh/tab; at completion time they run `tally complete -- <words>`, which cli/main.ts answers
// before the rest of the CLI loads (see completion/complete.ts).
import type { Command } from 'commander';
import { type FlagValues, declareFlags } from '../flags/declare.js';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import type { CommandLine } from '../cli/command.js';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;

export function configure(command: Command): void {
  command.argument('<shell>', `the shell: ${SHELLS.join(', ')}`);
  const shell = command.registeredArguments[0];
  if (shell) shell.choices([...SHELLS]);
}

export const flags = declareFlags({
  name: { kind: 'value', value: 'command', help: 'the name the shell calls tally by', default: 'tally' },
});

/** The shell a script is for, and the name the shell calls tally by. */
export interface CompletionRequest {
  shell: (typeof SHELLS)[number];
  name: string;
}

export function parse(given: FlagValues<typeof flags>, line: CommandLine): CompletionRequest {
  const shell = line.args[0] as (typeof SHELLS)[number];
  const { name } = given;
  if (!/^[\w.-]{1,40}$/.test(name)) throw new UsageError(`--name "${name}" is not a command name`);
  if (line.output.json || line.output.csv) throw new UsageError('a completion script is shell code; --json and --csv do not apply');
  return { shell, name };
}

export async function run(request: CompletionRequest, ctx: Context): Promise<void> {
  const { completionScript } = await import('../completion/script.js');
  ctx.io.out(await completionScript(request.shell, request.name));
}
