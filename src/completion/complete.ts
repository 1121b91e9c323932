// `tally complete -- <words>`: what the completion scripts ask at every Tab. @bomb.sh/tab's
// completion engine answers from the spec the build saved beside the bundle (built afresh from
// the registry when there is none), plus the stored profile names for --profile, read straight
// from config.json. Output: one `value<TAB>description` per line, then `:<directive>`.
import { PROFILE_NAME } from '../settings/profile-name.js';
import { workspaceProfile } from '../settings/workspace.js';
import { shippedText } from '../external.js';
import { join } from 'node:path';
import { stateDirFor } from '../settings/state-dir.js';
import { readStateFile } from '../settings/read-file.js';

/** What completion knows of tally, as data (the build writes it: src/cli/completion-spec.ts). */
export interface SpecOption {
  name: string;
  description: string;
  /** Takes a value (`--bucket day`), and the values it may take, when enumerated. */
  takesValue: boolean;
  choices: string[];
  alias?: string;
}

export interface SpecCommand {
  name: string;
  description: string;
  options: SpecOption[];
  arguments: { name: string; choices: string[]; variadic: boolean }[];
}

export interface CompletionSpec {
  options: SpecOption[];
  commands: SpecCommand[];
}

type Complete = (value: string, description: string) => void;
interface TabCommand {
  option(name: string, description: string, handlerOrAlias?: ((complete: Complete) => void) | string, alias?: string): TabCommand;
  argument(name: string, handler?: (complete: Complete) => void, variadic?: boolean): TabCommand;
}
interface TabRoot extends TabCommand {
  command(name: string, description: string): TabCommand;
  parse(words: string[]): void;
}

export async function answerCompletion(words: string[], env: NodeJS.ProcessEnv, spec: CompletionSpec, extra: { models?: string[] } = {}): Promise<void> {
  // tab is bundled (small): importing it from node_modules would start Node's ESM loader, a cost paid at every Tab.
  const tab = await import('@bomb.sh/tab');
  const root = tab.default as unknown as TabRoot;
  let profiles: Promise<string[]> | undefined;
  const profileNames = () => (profiles ??= stateDirFor(env).then(storedProfiles));
  const offer = (values: string[]) => (complete: Complete) => values.forEach((value) => complete(value, ''));
  const addOption = (command: TabCommand, option: SpecOption) => {
    if (option.name === 'profile') command.option(option.name, option.description, (complete) => names.forEach((name) => complete(name, 'stored profile')), option.alias);
    // Budget gates name stored budgets; --tz names a zone.
    else if (BUDGET_OPTIONS.has(option.name)) command.option(option.name, option.description, (complete) => budgetNames.forEach((name) => complete(name, 'stored budget')), option.alias);
    else if (option.name === 'tz') command.option(option.name, option.description, (complete) => zoneNames().forEach((name) => complete(name, '')), option.alias);
    // report --send and check --notify name a stored destination; --compare takes previous or a month; sandbox --fault a kind.
    else if (DESTINATION_OPTIONS.has(option.name)) command.option(option.name, option.description, (complete) => destinationNames.forEach((name) => complete(name, 'notify destination')), option.alias);
    else if (option.name === 'compare') command.option(option.name, option.description, (complete) => comparePeriods().forEach((value) => complete(value, '')), option.alias);
    // whatif --swap MODEL=OTHER: the cached catalog's models (the full program looks them up), then the others after `=`.
    else if (option.name === 'swap') command.option(option.name, option.description, (complete) => swapValues(words.at(-1) ?? '', extra.models ?? []).forEach((value) => complete(value, '')), option.alias);
    else if (option.takesValue) command.option(option.name, option.description, offer(option.choices), option.alias);
    else if (option.alias) command.option(option.name, option.description, option.alias);
    else command.option(option.name, option.description);
  };
  for (const option of spec.options) addOption(root, option);
  for (const entry of spec.commands) {
    const command = root.command(entry.name, entry.description);
    // Global options apply after any command word too.
    for (const option of [...entry.options, ...spec.options.filter((g) => !entry.options.some((o) => o.name === g.name))]) addOption(command, option);
    for (const argument of entry.arguments) {
      // The names stored in the profile: budgets after `budget`, destinations after `notify ACTION`.
      const stored = STORED_NAMES[`${entry.name} ${argument.name}`];
      // Its own words only where one may stand (`budget rm` is followed by a budget, not by `set`):
      // the words before the one being typed hold no more than the command.
      if (stored) command.argument(argument.name, (complete) => [...(commandWords.length - 1 > 1 ? [] : stored.words), ...storedNames].forEach((name) => complete(name, '')), argument.variadic);
      else if (entry.name === 'auth switch') command.argument(argument.name, (complete) => names.forEach((name) => complete(name, 'stored profile')), argument.variadic);
      else command.argument(argument.name, argument.choices.length ? offer(argument.choices) : undefined, argument.variadic);
    }
  }
  // `--swap MODEL=<Tab>`: tab reads a word holding `=` as `--option=value`, so the pairs are offered here.
  const typed = words.at(-1) ?? '';
  if (words.at(-2) === '--swap' && typed.includes('=')) {
    for (const value of swapValues(typed, extra.models ?? [])) if (value.startsWith(typed)) console.log(value);
    console.log(':4');
    return;
  }
  // Profile names are read only when a Tab asks for them (reading them may load env-paths).
  const commandWords = wordsOf(words);
  const wantsProfiles = words.slice(-2).some((word) => word === '--profile' || word.startsWith('--profile=')) || (commandWords[0] === 'auth' && commandWords[1] === 'switch');
  const names = wantsProfiles ? await profileNames() : [];
  const field = commandWords[0] === 'budget' ? 'budgets' : commandWords[0] === 'notify' && commandWords.length > 2 ? 'notify' : undefined;
  const storedNames = field ? await stateDirFor(env).then((dir) => namesIn(dir, profileOf(words, env, dir), field)) : [];
  const wantsBudgets = words.slice(-2).some((word) => BUDGET_OPTIONS.has(word.replace(/^--/, '').split('=')[0]!));
  const budgetNames = wantsBudgets ? await stateDirFor(env).then((dir) => namesIn(dir, profileOf(words, env, dir), 'budgets')) : [];
  const wantsDestinations = words.slice(-2).some((word) => DESTINATION_OPTIONS.has(word.replace(/^--/, '').split('=')[0]!));
  const destinationNames = wantsDestinations ? await stateDirFor(env).then((dir) => namesIn(dir, profileOf(words, env, dir), 'notify')) : [];
  // A value without a description is written without the tab before it: zsh's _describe lists
  // values that share a description on one line ending in `-- DESCRIPTION`, so an empty one
  // showed a bare `--` among the values of --bucket.
  const log = console.log;
  console.log = (...parts: unknown[]) => (parts.length === 1 && typeof parts[0] === 'string' ? log(parts[0].replace(/\t$/, '')) : log(...parts));
  try {
    root.parse(words);
  } finally {
    console.log = log;
  }
}

/** MODEL, or once `MODEL=` is typed, MODEL=OTHER for every other model (the bash script trims what readline keeps before the `=`). */
function swapValues(typed: string, models: string[]): string[] {
  const at = typed.indexOf('=');
  if (at < 0) return models;
  const from = typed.slice(0, at);
  return models.filter((m) => m !== from).map((m) => `${from}=${m}`);
}

/** Options that name a stored notify destination. */
const DESTINATION_OPTIONS = new Set(['send', 'notify']);

/** What --compare takes: previous, and the months just before this one. */
function comparePeriods(): string[] {
  const now = new Date();
  const month = (back: number) => {
    const d = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - back, 1));
    return `${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
  };
  return ['previous', 'last-year', month(1), month(2), month(3)];
}

/** check's options that name a stored budget. */
const BUDGET_OPTIONS = new Set(['budget', 'warn-budget', 'budget-projected']);

/** The zone names this platform knows, for --tz (UTC first). */
function zoneNames(): string[] {
  const intl = Intl as unknown as { supportedValuesOf?: (key: string) => string[] };
  return ['UTC', ...(intl.supportedValuesOf?.('timeZone') ?? [])];
}

/** Arguments completed from the profile (and the words of the command itself). */
const STORED_NAMES: Record<string, { words: string[] }> = {
  'budget words': { words: ['set', 'list', 'rm'] },
  'notify name': { words: [] },
};

/** The command words of a line (options and the values of global options left out). */
function wordsOf(words: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < words.length; i++) {
    if (words[i]!.startsWith('-')) {
      if (['--profile', '--base-url', '--timeout', '--jq', '--tz'].includes(words[i]!)) i++;
      continue;
    }
    out.push(words[i]!);
  }
  return out;
}

/**
 * The profile a command line uses, as a run chooses it: --profile, TALLY_PROFILE, the folder's
 * .tally.json, the active profile (`tally auth switch`), else default.
 */
export function profileOf(words: string[], env: NodeJS.ProcessEnv, dir: string, cwd = process.cwd()): string {
  const at = words.findIndex((word) => word === '--profile' || word.startsWith('--profile='));
  if (at >= 0) return words[at]!.includes('=') ? words[at]!.split('=')[1]! : (words[at + 1] ?? 'default');
  if (env.TALLY_PROFILE) return env.TALLY_PROFILE;
  const workspace = workspaceProfile(cwd);
  if (workspace && 'profile' in workspace) return workspace.profile;
  try {
    const active = (JSON.parse(readStateFile(join(dir, 'config.json'), 4 * 1024 * 1024).toString('utf8')) as { active?: unknown }).active;
    if (typeof active === 'string' && PROFILE_NAME.test(active)) return active;
  } catch {
    // No readable settings: the default profile.
  }
  return 'default';
}

/** The names of a profile's budgets or destinations (none when there is no readable file). */
function namesIn(dir: string, profile: string, field: 'budgets' | 'notify'): string[] {
  try {
    const profiles = (JSON.parse(readStateFile(join(dir, 'config.json'), 4 * 1024 * 1024).toString('utf8')) as { profiles?: Record<string, Record<string, unknown>> }).profiles;
    const record = profiles && Object.hasOwn(profiles, profile) ? profiles[profile]![field] : undefined;
    return record && typeof record === 'object' ? Object.keys(record).filter((name) => /^[a-z0-9][a-z0-9_-]{0,31}$/.test(name)) : [];
  } catch {
    return [];
  }
}

/** The spec the build saved (dist/completion.json, shipped with the bundle); undefined when there is none to read. */
export function readSavedSpec(): CompletionSpec | undefined {
  try {
    const text = shippedText('dist/completion.json');
    return text === undefined ? undefined : (JSON.parse(text) as CompletionSpec);
  } catch {
    return undefined;
  }
}

/** Profile names in config.json (none when there is no readable file). */
function storedProfiles(dir: string): string[] {
  try {
    // Only a small regular file: a FIFO or a link to a device would hang every Tab.
    const profiles = (JSON.parse(readStateFile(join(dir, 'config.json'), 4 * 1024 * 1024).toString('utf8')) as { profiles?: unknown }).profiles;
    return profiles && typeof profiles === 'object' ? Object.keys(profiles).filter((name) => PROFILE_NAME.test(name)) : [];
  } catch {
    return [];
  }
}
