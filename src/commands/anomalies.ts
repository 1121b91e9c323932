// tally anomalies: what a person should look at in a window (spikes, models that started or
// stopped costing money, calls with tokens and no cost, steady growth), each with its evidence.
// Exit 0 whatever is found: `tally check --anomalies` is the gate.
import { type Command, Option } from 'commander';
import type { Context } from '../context.js';
import { addWindowOptions } from '../flags/options.js';
import { anomalyRuleOf, addAnomalyRuleOptions } from '../flags/anomaly-flags.js';
import { emit } from '../output/emit.js';

export function configure(command: Command): void {
  command.addOption(new Option('--bucket <size>', 'look at days or hours').choices(['day', 'hour']).default('day'));
  addWindowOptions(command, 'the last 30 days, today included');
  command.option('--metric <name>', 'the usage field holding money (default: discovered)');
  addAnomalyRuleOptions(command);
}

export async function run(raw: Record<string, unknown>, ctx: Context): Promise<void> {
  const [{ loadAnomalies }, view] = await Promise.all([import('../figures/anomalies.js'), import('../output/anomalies.js')]);
  const options = raw as { bucket: string; since?: string; until?: string; month?: string; last?: string; utcOffset?: string; metric?: string };
  const anomalies = await loadAnomalies(ctx, { ...options, rule: anomalyRuleOf(raw) });
  await emit(ctx, { json: () => view.anomaliesJson(anomalies), human: () => view.renderAnomalies(anomalies, ctx) });
}
