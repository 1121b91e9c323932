// The thresholds of the anomaly rule as flags, shared by `tally anomalies` and `tally check --anomalies`.
import { type FlagValues, declareFlags } from './declare.js';
import type { AnomalyRule } from '../figures/anomalies.js';
import { parseAmount, parsePercent } from './amount-flags.js';
import { positiveNumber, wholeNumber } from './flag-values.js';

/** The anomaly rule's thresholds, declared once for both commands. */
export const ANOMALY_RULE_FLAGS = declareFlags({
  baseline: { kind: 'value', value: 'n', help: 'the days before each bucket its spend is set against (default 14; for hours, the same hour of 7 days)' },
  deviations: { kind: 'value', value: 'x', help: 'how far above the median a spike is, in median absolute deviations (default 5)' },
  minRatio: { kind: 'value', value: 'x', help: 'how many times the median a spike is at least (default 2)' },
  minAmount: { kind: 'value', value: 'yuan', help: 'the least a spike, or a model that starts or stops, costs to be news (default ¥5 a day, ¥2 an hour)' },
  growthPeriods: { kind: 'value', value: 'n', help: 'steady growth: this many periods in a row, each up (default 4)' },
  growthStep: { kind: 'value', value: 'percent', help: 'steady growth: each period up by at least this much (default 10)' },
});

/** The rule's thresholds given as flags (those not given keep their defaults). */
export function anomalyRuleOf(flags: FlagValues<typeof ANOMALY_RULE_FLAGS>): Partial<AnomalyRule> {
  const { baseline, deviations, minRatio, minAmount, growthPeriods: periods, growthStep: step } = flags;
  return {
    baseline: baseline === undefined ? undefined : wholeNumber(baseline, '--baseline', 3, 366),
    deviations: deviations === undefined ? undefined : positiveNumber(deviations, '--deviations', 0, 100),
    minRatio: minRatio === undefined ? undefined : positiveNumber(minRatio, '--min-ratio', 1, 1000),
    minAmount: minAmount === undefined ? undefined : parseAmount(minAmount, '--min-amount'),
    growthPeriods: periods === undefined ? undefined : wholeNumber(periods, '--growth-periods', 2, 24),
    growthStep: step === undefined ? undefined : parsePercent(step, '--growth-step'),
  };
}
