// A command's reference page, generated from its definition (the registry's entry and the options
// its module configures): synopsis, options with their defaults, examples, exit codes and its JSON
// schema. scripts/docs.mjs writes one per command to docs/commands/ and the man page tally(1);
// a test fails when a written file is not what this makes now.
import type { Command, Option } from 'commander';

export interface CommandPage {
  name: string;
  summary: string;
  usage: string;
  options: { flags: string; description: string; default?: string }[];
  examples: string[];
  /** The schema of its --json, where one is shipped (schemas/NAME.schema.json). */
  schema?: string;
}

export const EXIT_CODE_ROWS: [string, string][] = [
  ['0', 'ok (a check: every gate passed)'],
  ['1', 'the service failed, or answered what tally cannot use'],
  ['2', 'a usage mistake: a flag, a value, a file tally cannot use'],
  ['3', 'no credential, or one the gateway refused'],
  ['4', 'rate limited past --timeout'],
  ['5', 'a check failed (tally run: stopped past the limit; audit --fail: unexplained charges)'],
  ['130', 'interrupted (Ctrl-C)'],
];

export function optionRow(option: Option): CommandPage['options'][number] {
  const value = option.defaultValue;
  const shown = value === undefined || value === false || (Array.isArray(value) && value.length === 0) ? undefined : Array.isArray(value) ? value.join(', ') : String(value);
  return { flags: option.flags, description: option.description, ...(shown !== undefined && !option.negate ? { default: shown } : {}) };
}

export function commandPage(command: Command, entry: { name: string; summary: string; example: string; more?: string[] }, schema: string | undefined): CommandPage {
  return {
    name: entry.name,
    summary: entry.summary,
    usage: `tally ${entry.name} ${command.usage()}`.trim(),
    options: command.options.filter((o) => !o.hidden).map(optionRow),
    examples: [entry.example, ...(entry.more ?? [])],
    ...(schema ? { schema } : {}),
  };
}

/** Text for a Markdown table cell: pipes and line breaks escaped. */
const cell = (text: string) => text.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** The Markdown page of a command (docs/commands/NAME.md). */
export function markdownPage(page: CommandPage, globals: CommandPage['options']): string {
  const lines = [
    `# tally ${page.name}`,
    '',
    `${page.summary[0]!.toUpperCase()}${page.summary.slice(1)}.`,
    '',
    '<!-- Generated from the command\'s definition by `npm run docs`: edit src/, not this file. -->',
    '',
    '## Synopsis',
    '',
    '```text',
    page.usage,
    '```',
    '',
  ];
  if (page.options.length) {
    lines.push('## Options', '', '| Option | What it does | Default |', '|---|---|---|');
    for (const o of page.options) lines.push(`| \`${cell(o.flags)}\` | ${cell(o.description)} | ${o.default === undefined ? '' : `\`${cell(o.default)}\``} |`);
    lines.push('');
  }
  lines.push('Every command also takes the global options (`tally --help`, and [the list below](#global-options)).', '');
  lines.push('## Examples', '', '```sh', ...page.examples, '```', '');
  lines.push('## Exit codes', '', '| Code | Meaning |', '|---|---|', ...EXIT_CODE_ROWS.map(([code, meaning]) => `| ${code} | ${meaning} |`), '');
  if (page.schema) lines.push('## JSON', '', `\`--json\` prints one document, described by [\`${page.schema}\`](../../${page.schema}) (JSON Schema, shipped in the package).`, '');
  lines.push('## Global options', '', '| Option | What it does | Default |', '|---|---|---|');
  for (const o of globals) lines.push(`| \`${cell(o.flags)}\` | ${cell(o.description)} | ${o.default === undefined ? '' : `\`${cell(o.default)}\``} |`);
  lines.push('');
  return lines.join('\n');
}

/** roff text: backslashes and leading dots or quotes made literal. */
const roff = (text: string) =>
  text
    .replace(/\\/g, '\\e')
    .replace(/-/g, '\\-')
    .replace(/^([.'])/gm, '\\&$1')
    // Beyond ASCII: groff's named Unicode escapes.
    .replace(/[^\x00-\x7f]/gu, (c) => `\\[u${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}]`);

/** The man page tally(1): every command with its options and examples, the topics, the exit codes. */
export function manPage(pages: CommandPage[], globals: CommandPage['options'], topics: readonly { name: string; title: string }[], version: string): string {
  const lines = [
    `.TH TALLY 1 "" "tally ${roff(version)}" "User Commands"`,
    '.SH NAME',
    'tally \\- see and guard what you spend on an LLM inference gateway',
    '.SH SYNOPSIS',
    '.B tally',
    '[\\fIglobal options\\fR] \\fIcommand\\fR [\\fIoptions\\fR]',
    '.SH DESCRIPTION',
    'tally shows the balance and plan, a key\'s daily limit, usage over time, the models a key may use and their prices, forecasts and budgets of an LLM inference gateway, and guards them: budget gates for CI, a guard for agents, and a spending firewall that refuses the call past a limit. Amounts are exact decimals in the currency the service states.',
    '.SH GLOBAL OPTIONS',
  ];
  for (const o of globals) lines.push('.TP', `.B ${roff(o.flags)}`, `${roff(o.description)}${o.default === undefined ? '' : ` (default: ${roff(o.default)})`}`);
  lines.push('.SH COMMANDS');
  for (const page of pages) {
    lines.push('.SS', `.B ${roff(`tally ${page.name}`)}`, `${roff(page.summary)}.`, '.PP', `Usage: ${roff(page.usage)}`);
    for (const o of page.options) lines.push('.TP', `.B ${roff(o.flags)}`, `${roff(o.description)}${o.default === undefined ? '' : ` (default: ${roff(o.default)})`}`);
    lines.push('.PP', 'Examples:', '.nf', ...page.examples.map((e) => `  ${roff(e)}`), '.fi');
  }
  lines.push('.SH TOPICS', 'Each prints with \\fBtally help\\fR \\fItopic\\fR:');
  for (const t of topics) lines.push('.TP', `.B ${roff(t.name)}`, roff(t.title));
  lines.push('.SH EXIT STATUS');
  for (const [code, meaning] of EXIT_CODE_ROWS) lines.push('.TP', `.B ${code}`, roff(meaning));
  lines.push('.SH SEE ALSO', 'The manual in the package\'s docs/ folder, one page a command in docs/commands/.', '');
  return lines.join('\n');
}
