// The tools `tally mcp` offers an agent: each is a document a command already prints with --json
// (its JSON Schema is the one `tally schema` publishes), asked for with tally's own flag forms
// (`7d`, `2026-10`, `previous`), which the command validates as on the command line. Names are
// verb_noun; descriptions say what each answers, in which unit and for whom, for a model that
// must choose among them. Every tool reads; none changes anything.

export interface ToolInput {
  /** The flag it becomes (`--since`); a positional argument when undefined. */
  flag?: string;
  description: string;
  /** A list (each item one flag, e.g. --swap A=B --swap C=D). */
  list?: true;
  /** A switch: present or not. */
  flagOnly?: true;
}

export interface ToolSpec {
  name: string;
  title: string;
  description: string;
  /** The schema file in schemas/ of the document returned. */
  schema: string;
  /** The command line before the inputs (--json is added). */
  command: string[];
  inputs: Record<string, ToolInput>;
  required?: string[];
  /** Exit codes that still carry the document (check: 5, a condition failed). */
  documentOn?: number[];
  /** Inputs' values when the call gives none. */
  defaults?: Record<string, string>;
}

const WINDOW: Record<string, ToolInput> = {
  since: { flag: '--since', description: "start of the window: a duration back from now (7d, 36h), a date (2026-11-01), 'today', 'yesterday' or Unix seconds" },
  until: { flag: '--until', description: 'end of the window (excluded), in the same forms as since; default now' },
  month: { flag: '--month', description: 'a calendar month instead of since/until, as YYYY-MM (2026-10)' },
  last: { flag: '--last', description: "the last complete period instead of since/until: 'day', 'week', 'month' or 'quarter'" },
};

export const TOOLS: ToolSpec[] = [
  {
    name: 'get_status',
    title: 'Balance, key limit and spend now',
    description: "The account's balance (yuan), the API key's daily limit and what it has used today, its own quota, the last 7 days of spend, the top models and the runway (days until the balance runs out at the recent pace). Use first for 'how much do I have / spend'.",
    schema: 'status',
    command: ['status'],
    inputs: {},
  },
  {
    name: 'get_forecast',
    title: 'Runway and month-end projection',
    description: "Average daily spend over recent complete days, the runway in days and the date the balance (or the key's own quota) runs out, month-to-date spend and its projection to month end, and today against the key's daily limit. Amounts in yuan.",
    schema: 'forecast',
    command: ['forecast'],
    inputs: { days: { flag: '--days', description: 'how many complete days the average is taken over (default 7)' } },
  },
  {
    name: 'get_usage',
    title: 'Spend over time',
    description: "Spend (yuan) and calls per hour, day, week or month over a window, with totals, as the gateway states them for the account (or the key, where it says so). Default: the last 7 days by day.",
    schema: 'usage',
    command: ['usage'],
    inputs: { ...WINDOW, bucket: { flag: '--bucket', description: "'hour', 'day', 'week' or 'month'" } },
  },
  {
    name: 'get_spend_by_model',
    title: 'Spend per model',
    description: "The API key's spend (yuan), calls and tokens per model over a window, every page of records, with the key's share of the account's spend where both are known.",
    schema: 'usage-models',
    command: ['usage', '--by', 'model', '--bucket', 'day'],
    inputs: WINDOW,
  },
  {
    name: 'compare_periods',
    title: 'This period against another',
    description: "Spend (yuan) in a window against another (by default the same length just before it), in total or per model, with the change and the change in percent; says when a period is still running (part).",
    schema: 'usage-compare',
    command: ['usage'],
    defaults: { compare: 'previous' },
    inputs: {
      compare: { flag: '--compare', description: "what to compare with: 'previous' (default), 'last-year', or a window such as 2026-10" },
      ...WINDOW,
      by: { flag: '--by', description: "'model' for a row per model" },
    },
  },
  {
    name: 'find_anomalies',
    title: 'What to look at',
    description: 'Spend spikes (dated by their bucket), models that started or stopped costing money (dated by the day), calls billed at zero, steady growth. Each finding has its period, amount in yuan and baseline.',
    schema: 'anomalies',
    command: ['anomalies'],
    inputs: {
      ...WINDOW,
      bucket: { flag: '--bucket', description: "'hour' or 'day'" },
      min_amount: { flag: '--min-amount', description: 'ignore findings below this many yuan' },
    },
  },
  {
    name: 'get_budgets',
    title: 'Budgets and where each stands',
    description: "The budgets set with `tally budget set` (amount in yuan per day, week or month, in its own time zone): spent so far in the current period, the share used, and the projection to the period's end.",
    schema: 'budget',
    command: ['budget'],
    inputs: { name: { description: 'one budget by name (default: all)' } },
  },
  {
    name: 'check_conditions',
    title: 'Check budget conditions',
    description: "Evaluates spending conditions as a CI gate would and returns each result (ok, warn or fail) with the actual value and the limit; it never ends anything. Amounts in yuan; shares as '80%'.",
    schema: 'check',
    command: ['check'],
    inputs: {
      min_balance: { flag: '--min-balance', description: 'fail when the balance is below this many yuan' },
      max_daily_used: { flag: '--max-daily-used', description: "fail when the key has used more than this share of its daily limit ('80%') or this many yuan" },
      max_spend: { flag: '--max-spend', description: 'fail when spend over the window (since/last/month) is above this many yuan' },
      ...WINDOW,
      min_runway: { flag: '--min-runway', description: 'fail when the runway is shorter than this many days' },
      min_key_remaining: { flag: '--min-key-remaining', description: "fail when the key's own quota has less than this many yuan left" },
      budget: { flag: '--budget', description: 'fail when this budget (by name) is used up', list: true },
      require_model: { flag: '--require-model', description: 'fail when the key may not call this model', list: true },
    },
    documentOn: [5],
  },
  {
    name: 'list_prices',
    title: 'Model prices',
    description: 'The public price catalog: input and output prices in yuan per million tokens for each model, its vendor and type, filtered by a model pattern or vendor.',
    schema: 'pricing',
    command: ['pricing'],
    inputs: {
      model: { flag: '--model', description: "a model id or pattern ('gpt-5*')" },
      vendor: { flag: '--vendor', description: 'a vendor name (OpenAI, Anthropic)' },
      sort: { flag: '--sort', description: "'input', 'output' or 'name'" },
    },
  },
  {
    name: 'whatif_swap',
    title: 'What a model swap would cost',
    description: "The key's usage of a model re-priced at another model's catalog prices: the saving or extra cost in yuan over a window. Prices tally cannot read are said, never counted as zero.",
    schema: 'whatif',
    command: ['whatif'],
    inputs: {
      swap: { flag: '--swap', description: "FROM=TO model ids, e.g. 'claude-sonnet-4.5=deepseek-chat'", list: true },
      since: WINDOW.since!,
    },
    required: ['swap'],
  },
  {
    name: 'get_report',
    title: 'Digest of a week or month',
    description: "Spend in a week or month against the one before, per model, by day, the budgets as they stood at the period's end, anomalies, and the balance and runway now. Amounts in yuan; says whether the period has ended.",
    schema: 'report',
    command: ['report'],
    inputs: {
      period: { flag: '--period', description: "'week' (default) or 'month': the last complete one" },
      month: WINDOW.month!,
      since: WINDOW.since!,
      until: WINDOW.until!,
    },
  },
  {
    name: 'get_billing',
    title: 'Billing figures third-party tools read',
    description: "The compatible billing endpoints' figures (subscription, cumulative usage, the key's token record) converted to yuan, as OpenAI-style tools read them.",
    schema: 'billing',
    command: ['billing'],
    inputs: {},
  },
];

/** The JSON Schema of a tool's arguments: strings in tally's own forms (the command validates them), lists of strings, and a profile where several may be used. */
export function inputSchema(tool: ToolSpec, profiles?: string[]): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (const [name, input] of Object.entries(tool.inputs)) {
    properties[name] = input.list ? { type: 'array', items: { type: 'string' }, description: input.description } : { type: 'string', description: input.description };
  }
  if (profiles) properties.profile = { type: 'string', enum: profiles, description: "the stored profile (gateway and key) to ask; default: the server's" };
  return { type: 'object', properties, ...(tool.required ? { required: tool.required } : {}), additionalProperties: false };
}

/** The command line a call runs: the tool's command, its arguments as flags, --json. */
export function commandLine(tool: ToolSpec, args: Record<string, unknown>, profile: string | undefined): string[] {
  const flags: string[] = [];
  const positional: string[] = [];
  for (const [name, input] of Object.entries(tool.inputs)) {
    const value = args[name] ?? tool.defaults?.[name];
    if (value === undefined || value === null) continue;
    for (const item of Array.isArray(value) ? value.map(String) : [String(value)]) {
      // `--flag=value`: a value that starts with a dash is the flag's value, never another flag.
      if (input.flag) flags.push(`${input.flag}=${item}`);
      else positional.push(item);
    }
  }
  return [...(profile === undefined ? [] : ['--profile', profile]), ...tool.command, '--json', ...flags, ...(positional.length ? ['--', ...positional] : [])];
}
