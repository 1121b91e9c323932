// Every command: its name, one line of description, an example, and how to load it.
// Only the command being run is loaded, so `--help` stays cheap.
import type { Command } from 'commander';
import type { Context } from '../context.js';

export interface CommandModule {
  /** Adds the command's own flags and arguments. */
  configure(command: Command): void;
  /** `given(name)`: whether the flag was on the command line (not a default). */
  run(options: Record<string, unknown>, ctx: Context, args: string[], given?: (name: string) => boolean): Promise<void>;
}

export interface CommandEntry {
  /** Space-separated for a subcommand of a group (`auth status`). */
  name: string;
  summary: string;
  example: string;
  /** More examples for the command's help (the first is `example`). */
  more?: string[];
  /** Prints rows: --csv applies. */
  tabular?: true;
  load: () => Promise<CommandModule>;
}

export const COMMANDS: CommandEntry[] = [
  { name: 'login', summary: 'store an API key (or a device token) for a profile', example: 'tally login --base-url https://gw.example.com --with-token < key.txt', more: ['tally login --base-url https://gw.example.com', 'tally login --device --base-url https://gw.example.com', 'tally --profile work login --base-url https://gw.work.example.com'], load: () => import('../commands/login.js') },
  { name: 'logout', summary: "remove a profile's stored credential", example: 'tally logout --profile work', load: () => import('../commands/logout.js') },
  { name: 'auth status', summary: 'show base URL, credential kind and source, masked key', example: 'tally auth status', load: () => import('../commands/auth-status.js') },
  { name: 'auth switch', summary: 'make a stored profile the active one (used when --profile and TALLY_PROFILE name none)', example: 'tally auth switch default', load: () => import('../commands/auth-switch.js') },
  { name: 'balance', summary: 'account balance, plan state and the key\'s daily limit', example: 'tally balance --json', more: ['tally balance', 'tally balance --jq .balance', 'tally balance --watch 30'], load: () => import('../commands/balance.js') },
  { name: 'usage', tabular: true, summary: 'spend over time by hour, day, week or month (or per model with --by model)', example: 'tally usage --bucket hour --since 36h', more: ['tally usage --month 2026-10 --by model', 'tally usage --last quarter --csv > q.csv', 'tally usage --bucket month --since 2026-01', 'tally usage --chart --bucket hour --since 7d'], load: () => import('../commands/usage.js') },
  { name: 'logs', tabular: true, summary: 'the per-call log, any fields, every page with --all', example: 'tally logs --since 2h --ndjson', more: ['tally logs --since today', 'tally logs --since 1d --all --ndjson | jq .cost', 'tally logs --param model=gpt-5 --csv'], load: () => import('../commands/logs.js') },
  { name: 'models', tabular: true, summary: 'the models this key may call, with --prices what they cost', example: 'tally models --prices', more: ['tally models --min-context 200000 --reasoning --sort input', 'tally models --json'], load: () => import('../commands/models.js') },
  { name: 'pricing', tabular: true, summary: 'the public price catalog in yuan per 1M tokens (cached)', example: "tally pricing --model 'gpt-5*' --sort input", more: ['tally pricing --diff --since 7d', 'tally pricing --vendor OpenAI --sort output', 'tally pricing --diff --exit-code --json'], load: () => import('../commands/pricing.js') },
  { name: 'billing', summary: 'the compatible billing figures third-party tools read, in yuan', example: 'tally billing --compare', more: ['tally billing', 'tally billing --json'], load: () => import('../commands/billing.js') },
  { name: 'forecast', summary: 'average daily spend, runway, the month projected, today against the daily limit', example: 'tally forecast --days 14', more: ['tally forecast', 'tally forecast --json --jq .runway_days'], load: () => import('../commands/forecast.js') },
  { name: 'status', summary: 'one screen: balance, today, the last 7 days, top models, runway', example: 'tally status --watch', more: ['tally status', 'tally status --json'], load: () => import('../commands/status.js') },
  { name: 'budget', summary: 'budgets with periods that reset: set, list, rm, and where each stands', example: 'tally budget set monthly --amount 500 --period month --tz Asia/Shanghai', more: ['tally budget', 'tally budget list', 'tally budget monthly --json'], load: () => import('../commands/budget.js') },
  { name: 'notify', summary: 'where alerts go: add, list, rm and test webhook, Slack and ntfy destinations', example: 'tally notify add team --kind slack < slack-webhook-url.txt', more: ['tally notify list', 'tally notify test team'], load: () => import('../commands/notify.js') },
  { name: 'mark', summary: 'record the spend counters now, for check --max-run-spend at the end of a CI job', example: 'tally mark', more: ['tally mark eval --file .tally-mark.json'], load: () => import('../commands/mark.js') },
  { name: 'schema', summary: 'print the JSON Schema of a document tally defines (pin your scripts to it)', example: 'tally schema usage', more: ['tally schema', 'tally schema check'], load: () => import('../commands/schema.js') },
  { name: 'metrics', summary: 'balance and spend in the Prometheus text format: print, --textfile for node_exporter, or --serve', example: 'tally metrics', more: ['tally metrics --textfile /var/lib/node_exporter/textfile/tally.prom', 'tally metrics --serve 127.0.0.1:9464', 'tally --all-profiles metrics'], load: () => import('../commands/metrics.js') },
  { name: 'statusline', summary: 'one short line for shell prompts and status bars, from a cache', example: "tally statusline --format '{balance} {runway}'", more: ['tally statusline', 'tally statusline --check'], load: () => import('../commands/statusline.js') },
  { name: 'check', summary: 'budget gates for CI: exit 5 when a condition fails', example: 'tally check --min-balance 100 --max-daily-used 80%', more: ['tally check --max-spend 50 --last day', 'tally check --min-runway 14 --json', 'tally check --max-daily-used 90% --fail-open'], load: () => import('../commands/check.js') },
  { name: 'config list', summary: "the profile's settings and where each comes from", example: 'tally config list --profile work', load: () => import('../commands/config.js').then((m) => m.list) },
  { name: 'config get', summary: 'the value of one setting as it applies now', example: 'tally config get utc_offset', load: () => import('../commands/config.js').then((m) => m.get) },
  { name: 'config set', summary: 'store a setting in the profile (validated as the flags are)', example: 'tally config set utc_offset +08:00', load: () => import('../commands/config.js').then((m) => m.set) },
  { name: 'config unset', summary: 'remove a setting from the profile', example: 'tally config unset pricing_ttl', load: () => import('../commands/config.js').then((m) => m.unset) },
  { name: 'doctor', summary: 'a checklist for bug reports: Node, files, settings, network, clock, credential, limits', example: 'tally doctor', more: ['tally doctor --json'], load: () => import('../commands/doctor.js') },
  { name: 'completion', summary: 'print a shell completion script (bash, zsh, fish)', example: 'tally completion bash > ~/.local/share/bash-completion/completions/tally', more: ['source <(tally completion bash)', 'tally completion zsh > "${fpath[1]}/_tally"', 'tally completion fish > ~/.config/fish/completions/tally.fish'], load: () => import('../commands/completion.js') },
  { name: 'sandbox', summary: 'serve the built-in fake gateway on 127.0.0.1', example: 'tally sandbox --port 8787', more: ['tally sandbox --now 2026-11-20T10:00:00Z --utc-offset +08:00', 'tally sandbox --fault rate-limit:2'], load: () => import('../commands/sandbox.js') },
  { name: 'demo', summary: 'a short tour against the built-in sandbox', example: 'tally demo', load: () => import('../commands/demo.js') },
  { name: 'version', summary: 'print the version (the same as --version)', example: 'tally version', load: () => import('../commands/version.js') },
];
