// A value each input of each MCP tool takes, as its description says (JSON numbers where an amount,
// a share or a count is meant), and the arguments a tool needs beside it: the calls that try every
// input a tool declares, for the e2e tests and for every client they run.
import { TOOLS } from '../../src/mcp/tools.js';

const SAMPLE: Record<string, unknown> = { since: '7d', until: 'today', month: '2026-10', last: 'week', bucket: 'day', by: 'model', compare: 'last-year', days: 5, min_amount: 1, name: 'monthly', min_balance: 1, max_daily_used: '99%', max_spend: 100000, min_runway: 1, min_key_remaining: 0, budget: 'monthly:80%', require_model: 'gpt-5', model: 'gpt-5*', vendor: 'OpenAI', sort: 'input', swap: 'claude-sonnet-4.5=deepseek-chat', period: 'week' };
const BASE: Record<string, Record<string, unknown>> = { check_conditions: { min_balance: 1, max_spend: 100000 }, whatif_swap: { swap: ['claude-sonnet-4.5=deepseek-chat'] } };

/** [tool, input, arguments]: one call per input every tool declares (a budget named `monthly` must be stored). */
export const EVERY_INPUT: [string, string, Record<string, unknown>][] = TOOLS.flatMap((tool) =>
  Object.keys(tool.inputs).map((input): [string, string, Record<string, unknown>] => {
    let value = SAMPLE[input];
    if (tool.name === 'get_spend_by_model' && input === 'by') value = 'week';
    const choices = tool.inputs[input]!.choices;
    if (choices && !choices.includes(String(value))) value = choices.at(-1);
    // A report of dates names both ends.
    const report = tool.name === 'get_report' && (input === 'since' || input === 'until') ? { since: '2026-11-10', until: '2026-11-20' } : {};
    return [tool.name, input, { ...BASE[tool.name], [input]: value, ...report }];
  }),
);
