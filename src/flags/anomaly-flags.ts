// The thresholds of the anomaly rule as flags, shared by `tally anomalies` and `tally check --anomalies`.
import type { Command } from 'commander';
import type { AnomalyRule } from '../figures/anomalies.js';
import { parseAmount, parsePercent } from './amount-flags.js';
import { positiveNumber, wholeNumber } from './flag-values.js';

export function addAnomalyRuleOptions(command: Command): Command {
  return command
    .option('--baseline <n>', 'the days before each bucket its spend is set against (default 14; for hours, the same hour of 7 days)')
    .option('--deviations <x>', 'how far above the median a spike is, in median absolute deviations (default 5)')
    .option('--min-ratio <x>', 'how many times the median a spike is at least (default 2)')
    .option('--min-amount <yuan>', 'the least a spike, or a model that starts or stops, costs to be news (default ¥5 a day, ¥2 an hour)')
    .option('--growth-periods <n>', 'steady growth: this many periods in a row, each up (default 4)')
    .option('--growth-step <percent>', 'steady growth: each period up by at least this much (default 10)');
}

/** The rule's thresholds given as flags (those not given keep their defaults). */
export function anomalyRuleOf(raw: Record<string, unknown>): Partial<AnomalyRule> {
  const text = (name: string) => (typeof raw[name] === 'string' ? (raw[name] as string) : undefined);
  const baseline = text('baseline');
  const deviations = text('deviations');
  const minRatio = text('minRatio');
  const minAmount = text('minAmount');
  const periods = text('growthPeriods');
  const step = text('growthStep');
  return {
    baseline: baseline === undefined ? undefined : wholeNumber(baseline, '--baseline', 3, 366),
    deviations: deviations === undefined ? undefined : positiveNumber(deviations, '--deviations', 0, 100),
    minRatio: minRatio === undefined ? undefined : positiveNumber(minRatio, '--min-ratio', 1, 1000),
    minAmount: minAmount === undefined ? undefined : parseAmount(minAmount, '--min-amount'),
    growthPeriods: periods === undefined ? undefined : wholeNumber(periods, '--growth-periods', 2, 24),
    growthStep: step === undefined ? undefined : parsePercent(step, '--growth-step'),
  };
}
