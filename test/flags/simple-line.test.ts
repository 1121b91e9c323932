// A plain command line read without commander (flags/simple-line.ts) reads exactly as commander
// reads it: on lines made of the program's and each command's own flags, values of every shape
// (choices and not, dashes, `=`), words, short flags, repeats and mistakes, whenever the simple
// reader takes a line, commander takes it too and gives the same flags, defaults and "given";
// every line it does not take is left to commander.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/registry.js';
import { type ReadLine, commanderLine } from '../../src/cli/program.js';
import type { CommandModule } from '../../src/cli/command.js';
import { type FlagSpecs, flagName } from '../../src/flags/declare.js';
import { GLOBAL_FLAGS } from '../../src/flags/global-flags.js';
import { readSimpleLine } from '../../src/flags/simple-line.js';
import { createTestIO } from '../../src/io.js';

/** The words a line may be made of for `command`: its name, every flag of the program's and its own (and their --x=value forms), values, strays. */
function vocabulary(command: string, own: FlagSpecs): string[] {
  const words = [command, command, 'help', 'extra', '--', '-', '-V', '-h', '--help', '--version', '--bogus', '--json=1', '--no-json', '-j'];
  for (const specs of [GLOBAL_FLAGS, own]) {
    for (const [key, spec] of Object.entries(specs)) {
      const name = flagName(key, spec);
      words.push(name, name);
      if (spec.kind !== 'switch' && spec.kind !== 'negated') {
        const choices = 'choices' in spec && spec.choices ? spec.choices : [];
        words.push(`${name}=${choices[0] ?? 'v1'}`, `${name}=`, ...choices.slice(0, 3), `${name}=-x`);
      }
    }
  }
  return [...words, '7d', '30', 'hour', 'x', '-1', '--json', '--timeout', '--profile', 'default', '2026-11'];
}

/** Lines as scripts write them: flags in any order, each with a value of its kind where it takes one, now and then a stray word. */
function wellFormed(command: string, own: FlagSpecs): fc.Arbitrary<string[]> {
  const flags = [...Object.entries(GLOBAL_FLAGS), ...Object.entries(own)].map(([key, spec]) => {
    const name = flagName(key, spec);
    if (spec.kind === 'switch' || spec.kind === 'negated') return fc.constant([name]);
    const choices = 'choices' in spec && spec.choices ? [...spec.choices] : ['7d', 'work', '30', '2026-11', 'x y'];
    return fc.constantFrom(...choices).chain((value) => fc.constantFrom([name, value], [`${name}=${value}`]));
  });
  const stray = fc.constantFrom(['extra'], ['-x'], ['--nope'], ['--'], [command]);
  const part = fc.oneof({ arbitrary: fc.oneof(...flags), weight: 9 }, { arbitrary: stray, weight: 1 });
  return fc.tuple(fc.array(part, { maxLength: 2 }), fc.array(part, { maxLength: 5 })).map(([before, after]) => [...before.flat(), command, ...after.flat()]);
}

function sameRead(simple: NonNullable<ReturnType<typeof readSimpleLine>>, commander: ReadLine, own: FlagSpecs): void {
  for (const key of Object.keys(GLOBAL_FLAGS)) expect(simple.globals[key], `--${key}`).toEqual(commander.globals[key]);
  expect(simple.flags).toEqual(commander.flags);
  for (const key of Object.keys(own)) expect(simple.given.has(key), `given ${key}`).toBe(commander.given(key));
  expect(commander.args).toEqual([]);
}

// The commands a plain line may name: one word, no words or subcommands of their own.
const plain = await Promise.all(
  COMMANDS.filter((entry) => !entry.name.includes(' ')).map(async (entry) => ({ name: entry.name, module: (await entry.load()) as CommandModule })),
).then((all) => all.filter(({ module }) => !module.configure));

describe('a plain command line, read without commander', () => {
  it('covers the everyday commands', () => {
    expect(plain.map((c) => c.name)).toEqual(expect.arrayContaining(['balance', 'usage', 'status', 'forecast', 'check', 'logs', 'models', 'pricing']));
  });

  it('reads every line it takes as commander does (flags, defaults, what was given), on generated lines of each command', async () => {
    let taken = 0;
    let tried = 0;
    for (const { name, module } of plain) {
      const own = module.flags ?? {};
      const words = vocabulary(name, own);
      await fc.assert(
        fc.asyncProperty(fc.oneof(fc.tuple(fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 7 }), fc.boolean()).map(([line, first]) => (first ? [name, ...line] : line)), wellFormed(name, own)), async (argv) => {
          tried++;
          const simple = readSimpleLine(argv, name, GLOBAL_FLAGS, own);
          if (!simple) return;
          taken++;
          const commander = await commanderLine(argv, createTestIO({ stdoutIsTTY: false, stderrIsTTY: false }));
          expect(commander, argv.join(' ')).toBeDefined();
          sameRead(simple, commander!, own);
        }),
        { numRuns: 300, seed: 20261202 },
      );
    }
    // Not a test of nothing: a good share of the lines were taken and compared.
    expect(taken / tried).toBeGreaterThan(0.25);
  }, 120_000);

  it('takes the lines scripts write and leaves help, version, words, short flags and mistakes to commander', () => {
    const balance = plain.find((c) => c.name === 'balance')!.module.flags ?? {};
    const usage = plain.find((c) => c.name === 'usage')!.module.flags ?? {};
    expect(readSimpleLine(['balance', '--json'], 'balance', GLOBAL_FLAGS, balance)).toMatchObject({ globals: { json: true, timeout: '30', color: true, pager: true }, flags: {} });
    expect(readSimpleLine(['--profile', 'work', 'usage', '--bucket=hour', '--since', '7d', '--json'], 'usage', GLOBAL_FLAGS, usage)).toMatchObject({ globals: { profile: 'work', json: true }, flags: { bucket: 'hour', since: '7d' } });
    for (const argv of [['balance', '--help'], ['balance', '-h'], ['balance', '--version'], ['balance', 'extra'], ['balance', '-j'], ['balance', '--bogus'], ['balance', '--json=1'], ['balance', '--', '--json'], ['balance', '--profile', '--json'], ['balance', '--watch', '30'], ['usage', '--bucket', 'fortnight'], ['--bucket', 'hour', 'usage']]) {
      expect(readSimpleLine(argv, argv.includes('usage') ? 'usage' : 'balance', GLOBAL_FLAGS, argv.includes('usage') ? usage : balance), argv.join(' ')).toBeUndefined();
    }
  });
});
