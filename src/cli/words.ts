// The command words of a command line, found past the global options (and their values) as
// commander finds them: which command a line runs, and whether a help flag asks for that command's
// own help. (bin/run.cjs finds the first word by the same rule, to pick the bundle.)
import type { CommandEntry } from './command.js';
import { GLOBAL_FLAGS } from '../flags/global-flags.js';
import { flagName } from '../flags/declare.js';

const VALUE_OPTIONS = new Set(Object.entries(GLOBAL_FLAGS).filter(([, spec]) => spec.kind === 'value').map(([key, spec]) => flagName(key, spec)));

/** The command words in argv (skipping global options and their values), with where each is. */
function commandWords(argv: string[]): { word: string; at: number }[] {
  const words: { word: string; at: number }[] = [];
  for (let i = 0; i < argv.length && words.length < 2; i++) {
    const token = argv[i]!;
    if (token === '--') break;
    if (token.startsWith('-')) {
      if (VALUE_OPTIONS.has(token)) i++;
      continue;
    }
    words.push({ word: token, at: i });
  }
  return words;
}

/** The command words in argv (skipping global options and their values). */
export function commandPath(argv: string[]): string[] {
  return commandWords(argv).map((w) => w.word);
}

/**
 * Whether the line asks for one command's own help: a help flag after that command's words
 * (`tally budget list --help`), which describes that command alone. One before them (`tally --help
 * balance`, `tally budget -h list`) asks for the program's or a group's, which lists the others.
 */
export function asksOwnHelp(argv: string[], entry: CommandEntry | undefined): boolean {
  if (!entry) return false;
  const words = commandWords(argv);
  const last = words[entry.name.split(' ').length - 1];
  if (!last) return false;
  const end = argv.indexOf('--');
  return argv.some((token, i) => (token === '--help' || token === '-h') && i > last.at && (end < 0 || i < end));
}

/** Whether the command words name this entry of the registry. */
export function isWanted(entry: CommandEntry, words: string[]): boolean {
  const parts = entry.name.split(' ');
  return parts.every((part, index) => words[index] === part);
}
