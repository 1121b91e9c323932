// The manual's topics: what `tally help TOPIC` prints, each a Markdown file of docs/ shipped in the
// package (and the single executable). One list for the help command, the man page and the tests.

export interface Topic {
  /** What `tally help` takes (also the file: docs/NAME.md). */
  name: string;
  title: string;
  /** Other words a reader may type for it. */
  aliases?: string[];
}

export const TOPICS: readonly Topic[] = [
  { name: 'windows', title: 'Windows and dates: how tally reads the times you type and names the periods it shows', aliases: ['dates', 'time'] },
  { name: 'money', title: 'Money and numbers: amounts, shares, rounding and what each figure means', aliases: ['numbers', 'amounts'] },
  { name: 'reading', title: 'Reading your spend: status, balance, usage, logs, forecast, models, pricing, billing, audit', aliases: ['spend'] },
  { name: 'profiles', title: 'Profiles and fleets: several keys and gateways, --all-profiles, Prometheus', aliases: ['fleets', 'fleet'] },
  { name: 'budgets', title: 'Budgets and alerts: budgets, notifications, reports and digests', aliases: ['alerts', 'reports'] },
  { name: 'ci', title: 'CI: budget gates, what a run spent, the GitHub Action', aliases: ['gates'] },
  { name: 'agent', title: 'Inside the agent: the MCP server, the guard, the status line', aliases: ['agents', 'hooks'] },
  { name: 'firewall', title: 'Stopping the spender: tally run and the spending firewall (tally proxy)', aliases: ['stop', 'stops'] },
  { name: 'scripts', title: 'Scripts: --json, --jq, CSV, shell completion' },
  { name: 'setup', title: 'Setting up: login, profiles, config, doctor, the sandbox and the demo', aliases: ['install', 'start'] },
  { name: 'files', title: 'Files tally keeps and writes, and its security', aliases: ['security'] },
  { name: 'exit-codes', title: 'Exit codes', aliases: ['exit'] },
  { name: 'environment', title: 'Environment and the service: variables, TLS, proxies, round trips', aliases: ['env', 'network'] },
];

/** The topic a word names (its name or an alias), if any. */
export function topicOf(word: string): Topic | undefined {
  const w = word.toLowerCase();
  return TOPICS.find((t) => t.name === w || t.aliases?.includes(w));
}
