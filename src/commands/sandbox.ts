// tally sandbox: serve the fake gateway on 127.0.0.1 until interrupted.
import type { Command } from 'commander';
import { Option } from 'commander';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { emit } from '../output/emit.js';
import type { BucketNaming, Fault, FaultKind } from '../sandbox/server.js';
import { parseUtcOffset } from '../domain/offset.js';

const FAULTS: FaultKind[] = ['draining', 'rate-limit', 'error-200', 'success-false', 'unsupported', 'html', 'truncated', 'hang', 'stall', 'reset', 'slow'];

export function configure(command: Command): void {
  command
    .option('--port <n>', 'port on 127.0.0.1 (0 picks a free one)', '0')
    .addOption(new Option('--naming <style>', 'field names inside usage buckets').choices(['compact', 'detailed', 'iso']).default('compact'))
    .option('--utc-offset <+HH:MM>', 'offset of the day grid from UTC', '+00:00')
    .option('--catalog-size <n>', 'pad the price catalog with generated models up to n')
    .option('--catalog-churn', 'serve a new pricing_version with every catalog request')
    .option('--account-limit <n>', 'requests a minute on account endpoints before 429 (default 120, as the spec)')
    .option('--fault <kind[:times]>', `inject a fault (${FAULTS.join(', ')})`, (value: string, all: string[] = []) => [...all, value]);
}

export async function run(options: Record<string, unknown>, ctx: Context): Promise<void> {
  const port = wholeNumber(options.port, '--port', 'a port number', 0, 65535)!;
  const catalogSize = wholeNumber(options.catalogSize, '--catalog-size', 'a number of models', 0);
  const accountLimit = wholeNumber(options.accountLimit, '--account-limit', 'a number of requests', 1);
  const faults = ((options.fault as string[] | undefined) ?? []).map(parseFault);
  const { startSandbox } = await import('../sandbox/server.js');
  const sandbox = await startSandbox({
    port,
    naming: options.naming as BucketNaming,
    dayOffsetMinutes: parseUtcOffset(String(options.utcOffset)),
    catalogSize,
    catalogChurn: options.catalogChurn === true,
    accountLimit,
  });
  sandbox.faults.push(...faults);
  ctx.onDispose(() => sandbox.close());
  await emit(ctx, {
    json: { base_url: sandbox.baseUrl, api_key: sandbox.demoKey, limited_api_key: sandbox.limitedKey },
    human: () =>
      `Sandbox gateway on ${sandbox.baseUrl}\n\n` +
      `  export TALLY_BASE_URL=${sandbox.baseUrl}\n` +
      `  export TALLY_API_KEY=${sandbox.demoKey}\n\n` +
      `A key that sees fewer models: ${sandbox.limitedKey}\n` +
      `Device logins are approved at ${sandbox.baseUrl}/device\n` +
      'Press Ctrl-C to stop.\n',
  });
  await new Promise<void>((resolve) => {
    if (ctx.interrupt.aborted) resolve();
    ctx.interrupt.addEventListener('abort', () => resolve(), { once: true });
  });
  throw ctx.abortError();
}

/** A whole-number option in [min, max]; undefined when not given. */
function wholeNumber(value: unknown, flag: string, what: string, min: number, max = Number.MAX_SAFE_INTEGER): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < min || n > max) throw new UsageError(`${flag} "${String(value)}" is not ${what}`);
  return n;
}

function parseFault(text: string): Fault {
  const [kind, times] = text.split(':');
  if (!FAULTS.includes(kind as FaultKind)) throw new UsageError(`--fault "${text}": unknown kind (one of ${FAULTS.join(', ')})`);
  const count = times === undefined ? 1 : times === 'always' ? Number.POSITIVE_INFINITY : Number(times);
  if (!(count > 0)) throw new UsageError(`--fault "${text}": times must be a positive number or "always"`);
  return { kind: kind as FaultKind, times: count };
}
