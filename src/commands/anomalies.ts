// tally anomalies: what a person should look at in a window (spikes, models that started or
// stopped costing money, calls with tokens and no cost, steady growth), each with its evidence.
// Exit 0 whatever is found: `tally check --anomalies` is the gate.
import { type Command, Option } from 'commander';
import type { Context } from '../context.js';
import { addWindowOptions } from '../flags/options.js';
import { anomalyRuleOf, addAnomalyRuleOptions } from '../flags/anomaly-flags.js';
import { emit } from '../output/emit.js';
import type { AnomalyRequest } from '../figures/anomalies.js';

export function configure(command: Command): void {
  command.addOption(new Option('--bucket <size>', 'look at days or hours').choices(['day', 'hour']).default('day'));
  addWindowOptions(command, 'the last 30 days, today included');
  command.option('--metric <name>', 'the usage field holding money (default: discovered)');
  addAnomalyRuleOptions(command);
}

export function parse(flags: Record<string, unknown>): AnomalyRequest {
  const { bucket, since, until, month, last, utcOffset, metric } = flags as { bucket: string; since?: string; until?: string; month?: string; last?: string; utcOffset?: string; metric?: string };
  return { bucket, since, until, month, last, utcOffset, metric, rule: anomalyRuleOf(flags) };
}

export async function run(request: AnomalyRequest, ctx: Context): Promise<void> {
  const [{ loadAnomalies }, view] = await Promise.all([import('../figures/anomalies.js'), import('../output/anomalies.js')]);
  const anomalies = await loadAnomalies(ctx, request);
  await emit(ctx, { json: () => view.anomaliesJson(anomalies), human: () => view.renderAnomalies(anomalies, ctx) });
}
