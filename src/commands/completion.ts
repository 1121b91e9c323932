// tally completion bash|zsh|fish: a completion script for the shell. The scripts come from
// @bomb.sh/tab; at completion time they run `tally complete -- <words>`, which main.ts answers
// before the rest of the CLI loads (see completion/complete.ts).
import { type Command, Option } from 'commander';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;

export function configure(command: Command): void {
  command.argument('<shell>', `the shell: ${SHELLS.join(', ')}`);
  const shell = command.registeredArguments[0];
  if (shell) shell.choices([...SHELLS]);
  command.addOption(new Option('--name <command>', 'the name the shell calls tally by').default('tally'));
}

export async function run(raw: Record<string, unknown>, ctx: Context, args: string[]): Promise<void> {
  const shell = args[0] as (typeof SHELLS)[number];
  const name = String(raw.name);
  if (!/^[\w.-]{1,40}$/.test(name)) throw new UsageError(`--name "${name}" is not a command name`);
  if (ctx.options.json || ctx.options.csv) throw new UsageError('a completion script is shell code; --json and --csv do not apply');
  const { completionScript } = await import('../completion/script.js');
  ctx.io.out(await completionScript(shell, name));
}
