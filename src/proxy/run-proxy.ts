// The firewall `tally run --proxy` starts for its command: the run's --max-spend held before each
// call, the command's OpenAI and Anthropic SDKs pointed at it (their base URLs, and the local token
// as their keys), and no gateway credential left in the command's environment.
import type { Context } from '../context.js';
import type { HttpClient } from '../api/http.js';
import { Decimal } from '../domain/money.js';
import { escapeControl } from '../output/escape.js';
import { formatAmount } from '../output/money.js';
import { openFirewall } from './firewall.js';

export interface RunFirewall {
  /** The command's environment: its SDKs pointed at the firewall, no gateway credential. */
  env(base: NodeJS.ProcessEnv): NodeJS.ProcessEnv;
  refused(): number;
  onRefused(listener: () => void): void;
  /** The stop line, when the firewall refused a call. */
  stopText(command: string, groupWide: boolean, graceSeconds: number): string;
  close(): Promise<void>;
}

export async function startRunProxy(ctx: Context, client: HttpClient, max: Decimal): Promise<RunFirewall> {
  const money = (amount: Decimal) => formatAmount(amount, 'account', { currency: 'CNY' });
  const limits = [{ name: `--max-spend ${money(max)}`, amount: max, before: new Decimal(0), raise: 'The run is being stopped: run it again with a higher --max-spend.', scope: 'proxy' as const }];
  const firewall = await openFirewall(ctx, client, limits, { host: '127.0.0.1', port: 0, failClosed: false, say: (text) => ctx.debug(`tally run --proxy: ${text}`) });
  const { ledger, token } = firewall;
  const listeners: (() => void)[] = [];
  let last: { spent: Decimal; worst: Decimal } | undefined;
  ledger.onRefused = (refusal) => {
    last ??= { spent: refusal.spent, worst: refusal.worst };
    for (const listener of listeners.splice(0)) listener();
  };
  ctx.note(`tally run: the command's OpenAI and Anthropic SDKs go through a spending firewall at ${firewall.url} (OPENAI_BASE_URL, ANTHROPIC_BASE_URL and their keys are its local token; TALLY_API_KEY is not passed on): a call past --max-spend is refused before it is made`);
  return {
    env: (base) => {
      const { TALLY_API_KEY: _key, ...rest } = base;
      return { ...rest, OPENAI_BASE_URL: `${firewall.url}/v1`, OPENAI_API_BASE: `${firewall.url}/v1`, OPENAI_API_KEY: token, ANTHROPIC_BASE_URL: firewall.url, ANTHROPIC_API_KEY: token, TALLY_PROXY_URL: firewall.url };
    },
    refused: () => ledger.refused,
    onRefused: (listener) => {
      if (ledger.refused > 0) listener();
      else listeners.push(listener);
    },
    stopText: (command, groupWide, graceSeconds) =>
      `tally run: the firewall refused a call of ${escapeControl(command)} that could have taken the run's spend past --max-spend ${money(max)} (${money(last?.spent ?? ledger.spent)} through it so far, the call up to ${money(last?.worst ?? new Decimal(0))}). Stopping ${escapeControl(command)}: SIGTERM to ${groupWide ? 'its process group' : 'it and the processes it started'}, SIGKILL after ${graceSeconds}s`,
    close: () => firewall.close(),
  };
}
