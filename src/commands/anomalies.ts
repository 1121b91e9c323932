// tally anomalies: what a person should look at in a window (spikes, models that started or
// stopped costing money, calls with tokens and no cost, steady growth), each with its evidence.
// Exit 0 whatever is found: `tally check --anomalies` is the gate.
import type { Context } from '../context.js';
import { windowFlags } from '../flags/options.js';
import { ANOMALY_RULE_FLAGS, anomalyRuleOf } from '../flags/anomaly-flags.js';
import { type FlagValues, declareFlags } from '../flags/declare.js';
import { emit } from '../output/emit.js';
import type { AnomalyRequest } from '../figures/anomalies.js';

export const flags = declareFlags({
  bucket: { kind: 'value', value: 'size', help: 'look at days or hours', choices: ['day', 'hour'], default: 'day' },
  ...windowFlags('the last 30 days, today included'),
  metric: { kind: 'value', value: 'name', help: 'the usage field holding money (default: discovered)' },
  ...ANOMALY_RULE_FLAGS,
});

export function parse(given: FlagValues<typeof flags>): AnomalyRequest {
  const { bucket, since, until, month, last, utcOffset, metric } = given;
  return { bucket, since, until, month, last, utcOffset, metric, rule: anomalyRuleOf(given) };
}

export async function run(request: AnomalyRequest, ctx: Context): Promise<void> {
  const [{ loadAnomalies }, view] = await Promise.all([import('../figures/anomalies.js'), import('../output/anomalies.js')]);
  const anomalies = await loadAnomalies(ctx, request);
  await emit(ctx, { json: () => view.anomaliesJson(anomalies), human: () => view.renderAnomalies(anomalies, ctx) });
}
