// tally schema [COMMAND]: the JSON Schema (draft 2020-12) of a document tally defines, from
// schemas/ in the package. Scripts can pin it: properties are only ever added.
import { Argument, type Command } from 'commander';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import type { CommandLine } from '../cli/command.js';
import { shippedJson } from '../shipped.js';
import { emit } from '../output/emit.js';

/** Command (or document) name → schema file. */
const SCHEMAS: Record<string, string> = {
  usage: 'usage',
  'usage-models': 'usage-models',
  'usage-compare': 'usage-compare',
  anomalies: 'anomalies',
  whatif: 'whatif',
  export: 'export',
  report: 'report',
  logs: 'records',
  records: 'records',
  pricing: 'pricing',
  'pricing-diff': 'pricing-diff',
  billing: 'billing',
  forecast: 'forecast',
  'forecast-backtest': 'forecast-backtest',
  status: 'status',
  check: 'check',
  audit: 'audit',
  doctor: 'doctor',
  budget: 'budget',
  mark: 'mark',
  run: 'run',
  config: 'config',
};

export function configure(command: Command): void {
  const argument = new Argument('[command]', `one of ${Object.keys(SCHEMAS).join(', ')} (none: the list)`);
  // Named as choices for completion; an unknown name is answered by run, with the list.
  argument.argChoices = Object.keys(SCHEMAS);
  command.addArgument(argument);
}

/** The schema asked for (none: the list of them). */
export interface SchemaRequest {
  name: string | undefined;
}

export function parse(_flags: Record<string, unknown>, line: CommandLine): SchemaRequest {
  const name = line.args[0];
  if (name !== undefined && !Object.hasOwn(SCHEMAS, name)) throw new UsageError(`there is no schema "${name}"`, { hint: `Schemas: ${Object.keys(SCHEMAS).join(', ')}.` });
  return { name };
}

export async function run({ name }: SchemaRequest, ctx: Context): Promise<void> {
  if (name === undefined) {
    await emit(ctx, {
      json: { schemas: Object.keys(SCHEMAS) },
      human: () => `JSON Schemas (draft 2020-12) of tally's documents; \`tally schema NAME\` prints one:\n${Object.keys(SCHEMAS).map((n) => `  ${n}`).join('\n')}\n`,
    });
    return;
  }
  const { text, document } = shippedJson(`schemas/${SCHEMAS[name]}.schema.json`);
  // The schema is JSON already: --json and a plain run print the same document.
  await emit(ctx, { json: document, human: () => text });
}
