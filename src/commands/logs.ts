// tally logs: the per-call log (GET /v1/open/logs), whatever fields it has.
import type { Command } from 'commander';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { addWindowOptions } from './usage-series.js';
import { addRecordOptions, runRecordCommand } from './records-view.js';

export function configure(command: Command): void {
  addWindowOptions(command);
  addRecordOptions(command);
  command.option('--ndjson', 'one JSON record per line, written as pages arrive');
}

export async function run(raw: Record<string, unknown>, ctx: Context): Promise<void> {
  const options = raw as { since?: string; until?: string; utcOffset?: string; param?: string[]; all?: boolean; ndjson?: boolean };
  if (options.ndjson && (ctx.options.json || ctx.options.csv)) throw new UsageError('--ndjson cannot be combined with --json or --csv');
  return runRecordCommand(ctx, { ...options, path: '/v1/open/logs', defaultSpan: '24h', ndjson: options.ndjson === true });
}
