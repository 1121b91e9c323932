// A plain command line, read without commander: `tally balance --json`, `tally usage --bucket hour
// --since 7d --json`. Loading commander and building its program costs an everyday command about
// 2-3 ms of its start; a line whose every word reads one way only is read here instead, to exactly
// what commander gives (test/flags/simple-line.test.ts holds the two to each other on generated
// lines), and every other line is commander's, whose messages for mistakes are the ones users see.
import type { FlagSpec, FlagSpecs } from './declare.js';
import { flagName } from './declare.js';

/** A command line as the program's action reads it from commander. */
export interface SimpleLine {
  /** The program's flags, defaults included (commander's optsWithGlobals of them). */
  globals: Record<string, unknown>;
  /** The command's own flags, defaults included (commander's opts()). */
  flags: Record<string, unknown>;
  /** The command's own flags given on the line (commander's value source "cli"). */
  given: ReadonlySet<string>;
}

interface Known {
  key: string;
  spec: FlagSpec;
  own: boolean;
}

/**
 * `argv` read for `command` (a command of one word that takes no words of its own), or undefined
 * where the line is not one this reads in one way only: a word other than the command's name, a
 * short flag, `--`, a flag neither declares (help and version among them), one of the command's
 * flags before its name, a flag that takes an optional value, a list or words, a value that starts
 * with a dash or is not among its choices, `--switch=value`, flags that conflict, a required flag
 * left out.
 */
export function readSimpleLine(argv: readonly string[], command: string, globals: FlagSpecs, own: FlagSpecs): SimpleLine | undefined {
  const known = new Map<string, Known>();
  for (const [specs, isOwn] of [[globals, false], [own, true]] as const) {
    for (const [key, spec] of Object.entries(specs)) {
      const name = flagName(key, spec);
      // A name both declare is read by the program first: not a line read here.
      if (known.has(name)) return undefined;
      known.set(name, { key, spec, own: isOwn });
    }
  }
  const values = { globals: {} as Record<string, unknown>, flags: {} as Record<string, unknown> };
  const given = new Set<string>();
  let named = false;
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    if (word === command && !named) {
      named = true;
      continue;
    }
    if (!word.startsWith('--') || word === '--') return undefined;
    const equals = word.indexOf('=');
    if (equals === 2) return undefined;
    const flag = known.get(equals > 0 ? word.slice(0, equals) : word);
    if (!flag || (flag.own && !named)) return undefined;
    let value: unknown;
    if (flag.spec.kind === 'switch' || flag.spec.kind === 'negated') {
      if (equals > 0) return undefined;
      value = flag.spec.kind === 'switch';
    } else if (flag.spec.kind === 'value') {
      const text = equals > 0 ? word.slice(equals + 1) : argv[++i];
      if (text === undefined || (equals < 0 && text.startsWith('-'))) return undefined;
      if (flag.spec.choices && !flag.spec.choices.includes(text)) return undefined;
      value = text;
    } else {
      return undefined;
    }
    (flag.own ? values.flags : values.globals)[flag.key] = value;
    if (flag.own) given.add(flag.key);
  }
  if (!named) return undefined;
  for (const [key, spec] of Object.entries(own)) {
    if (spec.kind === 'value' && spec.required && !given.has(key)) return undefined;
    if (given.has(key) && spec.conflicts?.some((other) => given.has(other))) return undefined;
  }
  return { globals: withDefaults(values.globals, globals), flags: withDefaults(values.flags, own), given };
}

/** The values given, and each flag's default where it was not: a --no- flag is on, a flag with a default has it. */
function withDefaults(values: Record<string, unknown>, specs: FlagSpecs): Record<string, unknown> {
  const all: Record<string, unknown> = {};
  for (const [key, spec] of Object.entries(specs)) {
    if (key in values) all[key] = values[key];
    else if (spec.kind === 'negated') all[key] = true;
    else if ((spec.kind === 'value' || spec.kind === 'optional') && spec.default !== undefined) all[key] = spec.default;
  }
  return all;
}
