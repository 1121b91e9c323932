// A command's flags as data: each written once, by its name in camelCase (`minBalance` is
// --min-balance), with its kind, help, value, default, choices and what it conflicts with. From the
// one declaration come commander's options (and through them the help, the manual's reference
// and shell completion's values), the typed flags a command's `parse` reads (FlagValues: no cast),
// and the MCP tools' checks of the flags they send (test/mcp/tool-flags.test.ts).
import type { Command, Option } from 'commander';

interface Common {
  help: string;
  /** Flags this one cannot be given with (their names in camelCase), refused by the parser. */
  conflicts?: readonly string[];
  /** Not in the help, the manual or completion: the program's own (a hook's refresh). */
  hidden?: true;
}

/** `--markdown`: present or not. */
export interface SwitchFlag extends Common {
  kind: 'switch';
}
/** `--no-header`: on unless turned off (the value is the positive name's: `header`). */
export interface NegatedFlag extends Common {
  kind: 'negated';
}
/** `--since <time>`: one value (the last given wins). */
export interface ValueFlag extends Common {
  kind: 'value';
  /** The value's name in the help: `time` is `--since <time>`. */
  value: string;
  default?: string;
  choices?: readonly string[];
  /** The command cannot run without it (the parser says so). */
  required?: true;
}
/** `--watch [seconds]`: present alone (true) or with a value. */
export interface OptionalValueFlag extends Common {
  kind: 'optional';
  value: string;
  default?: string;
  choices?: readonly string[];
}
/** `--model <glob>` (repeatable): every value given, in order. */
export interface ListFlag extends Common {
  kind: 'list';
  value: string;
  choices?: readonly string[];
  /** Words completion offers where the command reads more than a closed set itself (`hang` of `hang:3`): never checked by the parser. */
  offers?: readonly string[];
}

/** `--notify <name...>`: the words after it, up to the next flag. */
export interface VariadicFlag extends Common {
  kind: 'variadic';
  value: string;
}

export type FlagSpec = SwitchFlag | NegatedFlag | ValueFlag | OptionalValueFlag | ListFlag | VariadicFlag;
export type FlagSpecs = Readonly<Record<string, FlagSpec>>;

/** A value as the parser gives it: one of the choices where they are declared. */
type Word<S> = S extends { choices: readonly (infer C extends string)[] } ? C : string;
type ValueOf<S> = S extends SwitchFlag | NegatedFlag ? boolean : S extends ListFlag ? Word<S>[] : S extends VariadicFlag ? string[] : S extends OptionalValueFlag ? Word<S> | true : Word<S>;
type Always<S> = S extends NegatedFlag ? true : S extends { default: string } ? true : S extends { required: true } ? true : false;

/** The flags as the parser hands them to a command: a flag with a default (or a --no- flag) always has a value; the others may be absent. */
export type FlagValues<T extends FlagSpecs> = { -readonly [K in keyof T as Always<T[K]> extends true ? K : never]: ValueOf<T[K]> } & { -readonly [K in keyof T as Always<T[K]> extends true ? never : K]?: ValueOf<T[K]> };

/** The declaration as written, its literal kinds and defaults kept for FlagValues. */
export function declareFlags<const T extends FlagSpecs>(specs: T): T {
  return specs;
}

/** A flag's name on the command line: `minBalance` is `--min-balance` (`--no-header` for a negated `header`). */
export function flagName(key: string, spec?: FlagSpec): string {
  const words = key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
  return spec?.kind === 'negated' ? `--no-${words}` : `--${words}`;
}

/**
 * Commander's options for the declared flags, added to `command` in the order declared. Made
 * through the command (createOption), so that this module loads no commander of its own: a
 * plain command line is read without it (flags/simple-line.ts).
 */
export function addFlags(command: Command, specs: FlagSpecs): Command {
  for (const [key, spec] of Object.entries(specs)) command.addOption(optionOf(command, key, spec));
  return command;
}

/** The flag as commander writes it: `--since <time>`, `--watch [seconds]`, `--notify <name...>`, `--no-header`. */
function flagWords(key: string, spec: FlagSpec): string {
  const name = flagName(key, spec);
  return spec.kind === 'switch' || spec.kind === 'negated' ? name : spec.kind === 'optional' ? `${name} [${spec.value}]` : spec.kind === 'variadic' ? `${name} <${spec.value}...>` : `${name} <${spec.value}>`;
}

/** A value outside a list flag's choices, as commander's InvalidArgumentError is (its code and exit code are what commander reads). */
function invalidArgument(message: string): Error {
  return Object.assign(new Error(message), { name: 'InvalidArgumentError', code: 'commander.invalidArgument', exitCode: 1 });
}

function optionOf(command: Command, key: string, spec: FlagSpec): Option {
  const option = command.createOption(flagWords(key, spec), spec.help);
  if (spec.kind === 'value' && spec.required) option.makeOptionMandatory();
  if (spec.kind !== 'switch' && spec.kind !== 'negated' && spec.kind !== 'variadic') {
    if (spec.choices) option.choices(spec.choices);
    if (spec.kind !== 'list' && spec.default !== undefined) option.default(spec.default);
    if (spec.kind === 'list') {
      const { choices } = spec;
      option.argParser((value: string, all: string[] | undefined) => {
        if (choices && !choices.includes(value)) throw invalidArgument(`Allowed choices are ${choices.join(', ')}.`);
        return [...(all ?? []), value];
      });
    }
  }
  if (spec.kind === 'list' && spec.offers) option.argChoices = [...spec.offers];
  if (spec.conflicts) option.conflicts([...spec.conflicts]);
  if (spec.hidden) option.hideHelp();
  return option;
}
