// How a run that went wrong ends: its error said in tally's words (commander's too), on stderr as
// a line of JSON under --json, and its exit code. The only place that chooses an exit code or
// prints an error (cli/program.ts hands every error here).
import type { CommanderError } from 'commander';
import { QuietExit, TallyError, UsageError } from '../errors.js';
import { didYouMean } from '../domain/suggest.js';
import type { IO } from '../io.js';
import type { SecretSet } from '../domain/secrets.js';
import { escapeControl } from '../output/escape.js';
import { errorJson, errorText } from '../output/error-text.js';
import { wrapNote } from '../output/wrap.js';

/** Commander's errors, known without loading commander (a line read without it never meets one): their code says so. */
function isCommanderError(error: unknown): error is CommanderError {
  const { code, exitCode } = (error ?? {}) as { code?: unknown; exitCode?: unknown };
  return error instanceof Error && typeof code === 'string' && code.startsWith('commander.') && typeof exitCode === 'number';
}

/** A commander error in tally's words: the problem, then the suggestion and where help is, on lines of their own. */
function fromCommander(error: CommanderError & { commandPath?: string; extra?: string[] }): UsageError {
  const command = error.commandPath ?? 'tally';
  // A value outside a flag's closed set: the set, and the one most likely meant, on its own line.
  const refused = /^error: (?:option '(\S+)[^']*' argument|command-argument value) '(.*)' is invalid(?: for argument '([^']*)')?\. Allowed choices are (.*)\.$/s.exec(error.message);
  if (refused) {
    const [, flag, value = '', argument, list = ''] = refused;
    const choices = list.split(', ');
    const hint = didYouMean(value, choices);
    return new UsageError(`${flag ?? argument} "${value}" is not one of ${choices.join(', ')}`, { hint: [...(hint ? [hint] : []), `See \`${command} --help\`.`].join('\n') });
  }
  const [said = '', ...rest] = error.message.replace(/^error: /, '').split('\n');
  const extra = error.extra?.length ? error.extra : undefined;
  const first = extra ? `${error.commandPath ?? 'tally'} does not take ${extra.map((w) => `"${escapeControl(w)}"`).join(', ')} (${said.replace(/\.$/, '')}); a value that belongs to a flag goes right after it` : said;
  const suggestion = rest.map((line) => line.replace(/^\((.*)\)$/, '$1')).filter(Boolean);
  // The help of the command the mistake was made in: `tally auth stats` points at `tally auth --help`.
  return new UsageError(first, { hint: [...suggestion, `See \`${command} --help\`.`].join('\n') });
}

export function report(error: unknown, io: IO, how: { json: boolean; debug: boolean; secrets: SecretSet }): number {
  // The command said all there is to say (`tally run`: the command's own exit code).
  if (error instanceof QuietExit) return error.exitCode;
  if (isCommanderError(error)) {
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help') return 0;
    if (error.code === 'commander.executeSubCommandAsync') return 0;
    error = fromCommander(error);
  }
  const text = errorText(error, how.secrets);
  if (how.json) io.err(`${errorJson(text)}\n`);
  // On a terminal a person reads it: the plain message too (under --json a script reads the JSON line).
  if (!how.json || io.stderrIsTTY) {
    const fit = (line: string) => (io.stderrIsTTY ? wrapNote(line, io.width, 2) : line);
    io.err(`${fit(`tally: ${text.message}`)}\n`);
    if (text.hint) io.err(`${text.hint.map(fit).join('\n')}\n`);
  }
  if (how.debug && error instanceof Error && error.stack) io.err(`${escapeControl(how.secrets.scrubMessage(error.stack)).replace(/\\n/g, '\n')}\n`);
  else if (!text.known) io.err('(run with --debug for details)\n');
  return error instanceof TallyError ? error.exitCode : 1;
}
