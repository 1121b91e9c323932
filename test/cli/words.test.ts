// The command words of a line, and whether its help flag asks for a command's own help (which a
// command's own bundle gives: bin/run.cjs route) or the program's.
import { describe, expect, it } from 'vitest';
import type { CommandEntry } from '../../src/cli/command.js';
import { asksOwnHelp, commandPath, isWanted } from '../../src/cli/words.js';

const entry = (name: string) => ({ name }) as CommandEntry;

describe('command words', () => {
  it('are found past global options and their values, up to two, and none past --', () => {
    expect(commandPath(['--profile', 'work', '--json', 'budget', 'list', 'monthly'])).toEqual(['budget', 'list']);
    expect(commandPath(['--tz', 'UTC', 'balance'])).toEqual(['balance']);
    expect(commandPath(['--profile=work', 'balance'])).toEqual(['balance']);
    expect(commandPath(['--', 'balance'])).toEqual([]);
    expect(isWanted(entry('budget list'), ['budget', 'list'])).toBe(true);
    expect(isWanted(entry('budget list'), ['budget'])).toBe(false);
  });

  it("ask for a command's own help with a help flag after its words, the program's (or the group's) with one before", () => {
    expect(asksOwnHelp(['balance', '--help'], entry('balance'))).toBe(true);
    expect(asksOwnHelp(['--json', 'balance', '-h'], entry('balance'))).toBe(true);
    expect(asksOwnHelp(['--help', 'balance'], entry('balance'))).toBe(false);
    expect(asksOwnHelp(['budget', 'list', '--help'], entry('budget list'))).toBe(true);
    expect(asksOwnHelp(['budget', '-h', 'list'], entry('budget list'))).toBe(false);
    expect(asksOwnHelp(['logs', '--', '--help'], entry('logs'))).toBe(false);
    expect(asksOwnHelp(['balance', '--help'], undefined)).toBe(false);
  });
});
