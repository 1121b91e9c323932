// The tools' arguments in the tools' own words: every input a tool declares becomes its flag (and
// no flag of the server's lands among a command's arguments), null is "not given", numbers are
// taken where an amount or a count is meant, one value is a list of one, a misspelt name is named
// with the nearest real one, and a command's error names the tool's arguments, not its flags.
import { describe, expect, it } from 'vitest';
import { PROFILE_INPUT, TOOLS, ToolInputError, checkedArguments, commandLine, inToolWords, inputSchema } from '../../src/mcp/tools.js';

const tool = (name: string) => TOOLS.find((t) => t.name === name)!;
const line = (name: string, args: unknown) => commandLine(tool(name), checkedArguments(tool(name), args).values);

describe('a tool call as a command line', () => {
  it('gives every declared input to its flag, positional ones after --, and nothing after them', () => {
    for (const spec of TOOLS) {
      const args = Object.fromEntries(Object.entries(spec.inputs).map(([name, input]) => [name, input.choices ? input.choices[input.choices.length - 1]! : input.list ? ['a=b'] : 'x']));
      const argv = commandLine(spec, checkedArguments(spec, args).values);
      const dashes = argv.indexOf('--');
      // After --, only the tool's own positional values.
      const positional = Object.entries(spec.inputs).filter(([, input]) => !input.flag);
      expect(dashes === -1 ? [] : argv.slice(dashes + 1)).toEqual(positional.map(([name]) => args[name]));
      for (const [name, input] of Object.entries(spec.inputs)) {
        if (!input.flag) continue;
        if (spec.name === 'get_spend_by_model' && name === 'by' && args[name] === 'total') continue;
        const value = args[name] as string | string[];
        for (const item of Array.isArray(value) ? value : [value]) expect(argv, `${spec.name} ${name}`).toContain(`${input.flag}=${item}`);
      }
    }
  });

  it('names the budget to show after --, and never a flag of its own after it', () => {
    expect(line('get_budgets', { name: 'monthly' })).toEqual(['budget', '--json', '--', 'monthly']);
    expect(line('get_budgets', { name: '--timeout=5' })).toEqual(['budget', '--json', '--', '--timeout=5']);
  });

  it('takes JSON numbers where an amount, share or count is meant, as decimal text', () => {
    expect(line('check_conditions', { min_balance: 100, max_daily_used: '80%', min_runway: 14 })).toEqual(['check', '--json', '--min-balance=100', '--max-daily-used=80%', '--min-runway=14']);
    expect(line('check_conditions', { min_balance: 0.00001, max_spend: 1e21 })).toEqual(['check', '--json', '--min-balance=0.00001', '--max-spend=1000000000000000000000']);
    expect(line('get_forecast', { days: 14 })).toEqual(['forecast', '--json', '--days=14']);
    expect(() => line('get_usage', { since: 7 })).toThrow('get_usage: since takes a string (got number)');
  });

  it('reads null as not given, and one value of a list as a list of one', () => {
    expect(line('get_usage', { since: null, until: null, bucket: 'hour' })).toEqual(['usage', '--json', '--bucket=hour']);
    expect(line('whatif_swap', { swap: 'a=b', since: null })).toEqual(['whatif', '--json', '--swap=a=b']);
    expect(line('whatif_swap', { swap: ['a=b', 'c=d'] })).toEqual(['whatif', '--json', '--swap=a=b', '--swap=c=d']);
    expect(line('get_status', null)).toEqual(['status', '--json']);
  });

  it('asks spend per model as one total per model by default, per period when asked', () => {
    expect(line('get_spend_by_model', {})).toEqual(['usage', '--by', 'model', '--json']);
    expect(line('get_spend_by_model', { by: 'day', since: '3d' })).toEqual(['usage', '--by', 'model', '--json', '--since=3d', '--bucket=day']);
    expect(line('compare_periods', { compare: 'last-year', last: 'week' })).toEqual(['usage', '--json', '--compare=last-year', '--last=week']);
  });

  it('names a misspelt argument and the nearest real one, a value outside its set and the one meant', () => {
    expect(() => line('get_usage', { sinec: '7d' })).toThrow('get_usage has no argument "sinec" (did you mean "since"?); its arguments are since, until, month, last, bucket');
    expect(() => line('get_status', { since: '7d' })).toThrow('get_status has no argument "since"; it takes no arguments');
    expect(() => line('get_usage', { bucket: 'hours' })).toThrow("get_usage: bucket \"hours\" is not one of 'hour', 'day', 'week', 'month' (did you mean 'hour'?)");
    expect(() => line('whatif_swap', {})).toThrow('whatif_swap needs swap:');
    expect(() => line('get_usage', [])).toThrow(ToolInputError);
  });

  it('takes a profile only where the server offers several, and only one of them', () => {
    const spec = tool('get_status');
    expect(() => checkedArguments(spec, { profile: 'ci' })).toThrow('get_status has no argument "profile"');
    expect(checkedArguments(spec, { profile: 'ci' }, ['ci', 'main'])).toEqual({ values: {}, profile: 'ci' });
    expect(() => checkedArguments(spec, { profile: 'mian' }, ['ci', 'main'])).toThrow("get_status: profile \"mian\" is not one of 'ci', 'main' (did you mean 'main'?)");
    expect((inputSchema(spec, ['ci', 'main']).properties as Record<string, unknown>)[PROFILE_INPUT]).toMatchObject({ enum: ['ci', 'main'] });
  });
});

describe('input schemas', () => {
  it('are objects of named arguments with no type arrays (portable to single-type dialects), numbers where amounts are meant', () => {
    for (const spec of TOOLS) {
      const schema = inputSchema(spec, ['a', 'b']);
      expect(schema).toMatchObject({ type: 'object', additionalProperties: false });
      expect(JSON.stringify(schema)).not.toMatch(/"type":\[/);
      for (const [name, input] of Object.entries(spec.inputs)) {
        const property = (schema.properties as Record<string, Record<string, unknown>>)[name]!;
        expect(property.description, `${spec.name} ${name}`).toBe(input.description);
        if (input.number) expect(property.anyOf).toEqual([{ type: 'string' }, { type: 'number' }]);
      }
    }
    expect((inputSchema(tool('check_conditions')).properties as Record<string, { description: string }>).budget!.description).toContain("'monthly:80%'");
  });
});

describe("a command's error in the tool's words", () => {
  it('names the arguments the flags came from and leaves out the command-line help', () => {
    expect(inToolWords(tool('get_usage'), '--since "yesterdy" is not a time (Did you mean "yesterday"? See `tally usage --help`.)')).toBe('since "yesterdy" is not a time (Did you mean "yesterday"?)');
    expect(inToolWords(tool('get_usage'), '--bucket "x" is not one of hour, day (See `tally usage --help`.)')).toBe('bucket "x" is not one of hour, day');
    expect(inToolWords(tool('check_conditions'), '--max-daily-used-x stays; --max-daily-used 80% is')).toBe('--max-daily-used-x stays; max_daily_used 80% is');
  });
});

/** What a tool needs to be a question at all (a check names a condition; a swap, its models). */
const SAMPLE_CALLS: Record<string, Record<string, unknown>> = {
  check_conditions: { min_balance: 100, max_daily_used: '80%' },
  whatif_swap: { swap: 'gpt-5=gpt-5-mini' },
  get_spend_by_model: { since: '30d', by: 'week' },
  compare_periods: { month: '2026-10', by: 'model' },
};

describe('a tool as a command of the registry', () => {
  it("runs a command the registry defines, with flags that command defines, and each tool's line parses into that command's request", async () => {
    const { Command } = await import('commander');
    const { COMMANDS } = await import('../../src/cli/registry.js');
    const { defineOn } = await import('../../src/cli/command.js');
    for (const spec of TOOLS) {
      const entry = COMMANDS.find((c) => c.name === spec.command[0]);
      expect(entry, spec.name).toBeDefined();
      const module = await entry!.load();
      const command = new Command(entry!.name).exitOverride();
      defineOn(command, module);
      const flags = new Set(command.options.flatMap((o) => [o.long, o.short].filter((f): f is string => f !== undefined)));
      const declared = [...spec.command.slice(1).filter((w) => w.startsWith('--')), ...Object.values(spec.inputs).flatMap((i) => (i.flag ? [i.flag] : []))];
      expect(declared.filter((f) => !flags.has(f)), spec.name).toEqual([]);
      // A value the command takes from a closed set is offered to the agent as that set, and only it.
      for (const [name, input] of Object.entries(spec.inputs)) {
        const option = input.flag ? command.options.find((o) => o.long === input.flag) : undefined;
        // (A tool may offer fewer, where the command's answer to one would not suit an agent, and one of its own that leaves the flag out.)
        if (option) expect((input.choices ?? []).filter((c) => c !== input.unset && !(option.argChoices ?? []).includes(c)), `${spec.name}.${name}`).toEqual([]);
        if (option?.argChoices) expect(input.choices, `${spec.name}.${name} takes a closed set`).toBeDefined();
      }
      // A call as an agent makes it, as the server builds it: the command's own parser and its parse take it.
      const argv = commandLine(spec, checkedArguments(spec, SAMPLE_CALLS[spec.name] ?? {}).values).filter((w) => w !== '--json');
      command.parse(argv.slice(1), { from: 'user' });
      const given = (name: string) => command.getOptionValueSource(name) === 'cli';
      expect(() => module.parse(command.opts(), { args: command.args, given, output: { json: true, csv: false, jq: false, exact: false, wide: false }, profiles: false }), spec.name).not.toThrow();
    }
  });
});
