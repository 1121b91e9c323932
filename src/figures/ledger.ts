// The ledger finance reconciles (`tally export`): one row per day (or hour) × model, from the
// records of usage by model asked period by period (every page, at the pace the gateway's rate
// limit allows), with the calls and tokens where the records give them and the amount exactly.
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { Decimal } from '../domain/money.js';
import { isDecimalString } from '../domain/decimal-text.js';
import type { Scope } from '../domain/records.js';
import { usagePerModel } from '../domain/repricing.js';
import { LEDGER_COLUMNS, type LedgerRow } from '../domain/ledger-format.js';
import { type UsageWindow, bucketStart, periodsOf, ended } from '../domain/window.js';
import { fixedZone, formatOffset, spreadsheetDate } from '../domain/zone.js';
import { type WindowOptions } from './day-grid.js';
import { type ModelSpendOver, accountSpend, spendPerModel } from './usage-by-model.js';
import { startAhead, windowOnGrid } from './usage-series.js';
import { MAX_CONNECTIONS_PER_ORIGIN } from '../api/transport.js';

export interface LedgerRequest extends WindowOptions {
  bucket?: string;
  /** Periods whose date is already in the file being appended to (--append): not asked again. */
  skipDates?: Set<string>;
  /** Only periods that have ended (--append: a running day is left for a later run). */
  endedOnly?: boolean;
}

export { LEDGER_COLUMNS, type LedgerRow };

export interface Ledger {
  window: UsageWindow;
  dayOffset: number;
  bucket: 'day' | 'hour';
  rows: LedgerRow[];
  /** Periods left out because the file already holds them. */
  skipped: number;
  /** Periods left out because they have not ended (endedOnly): their dates, for a later run. */
  running: string[];
  scope: Scope | undefined;
  /** The whole account's spend over the window, where the rows are a key's and the gateway says it (not with endedOnly). */
  accountSpend: string | undefined;
  /** A period's records did not all come back. */
  incomplete: boolean;
  /** The rows' amounts added up (decimal text): the spend these rows are. */
  spend: string;
}

/** At most a year of days, or 31 days of hours, per run: each is a request. */
const MAX_PERIODS = { day: 366, hour: 744 } as const;

export async function loadLedger(ctx: Context, request: LedgerRequest): Promise<Ledger> {
  const bucket = request.bucket === undefined || request.bucket === 'day' ? 'day' : request.bucket === 'hour' ? 'hour' : undefined;
  if (!bucket) throw new UsageError(`--bucket "${request.bucket}" is not day or hour (the ledger has a row per day or per hour, and model)`);
  // No window named: the last complete days (or hours) on the grid.
  const named = request.since !== undefined || request.until !== undefined || request.month !== undefined || request.last !== undefined;
  const plan = (onGrid: UsageWindow, dayOffset: number, now: number) => {
    const window = named ? onGrid : lastCompleteDays(now, bucket, dayOffset);
    const periods = periodsOf(window, bucket, dayOffset);
    const zone = fixedZone(dayOffset);
    const dateOf = (start: number) => spreadsheetDate(start, zone, bucket === 'hour');
    const done = (p: { end: number }) => ended(p, now);
    const running = request.endedOnly ? periods.filter((p) => !done(p)).map((p) => dateOf(p.start)) : [];
    const wanted = periods.filter((p) => !request.skipDates?.has(dateOf(p.start)) && (!request.endedOnly || done(p)));
    return { window, periods, dateOf, done, running, wanted };
  };
  // Each period's records, asked once: the first few go out while a first run learns the grid (see windowOnGrid).
  const spendOver = (w: UsageWindow) => spendPerModel(ctx, w);
  const onGrid = await windowOnGrid(ctx, request, bucket, undefined, (guess) => {
    const { periods, wanted } = plan(guess.window, guess.dayOffset, guess.now);
    if (periods.length <= MAX_PERIODS[bucket]) for (const p of wanted.slice(0, MAX_CONNECTIONS_PER_ORIGIN - 1)) startAhead(spendOver(p));
  });
  const { grid, now } = onGrid;
  const { window, periods, dateOf, done: periodEnded, running, wanted } = plan(onGrid.window, grid.offset, now);
  if (periods.length > MAX_PERIODS[bucket]) throw new UsageError(`${periods.length} ${bucket}s is more than the ${MAX_PERIODS[bucket]} one export asks for; export in parts (--append adds each to the same file)`);
  const [settings, gateway] = await Promise.all([ctx.settings(), ctx.gatewayIdentity()]);
  // The account's spend over the window goes out with the periods (a round later it would cost a
  // round trip); it is read where the periods' records turn out to be a key's.
  const accountAhead = !request.endedOnly && wanted.length === periods.length ? accountSpend(ctx, window) : undefined;
  if (accountAhead) startAhead(accountAhead);
  let done = 0;
  const found = await Promise.all(
    wanted.map(async (p) => {
      const over = await spendOver(p);
      ctx.progress(`export: ${++done} of ${wanted.length} ${bucket}s fetched…`);
      return { period: p, over };
    }),
  ).finally(() => ctx.progress(undefined));
  const scopes = new Set(found.map((f) => f.over.scope));
  const scope = scopes.size === 1 ? [...scopes][0] : undefined;
  const account = scope === 'key' && accountAhead ? await accountAhead : undefined;
  const rows: LedgerRow[] = [];
  for (const { period, over } of found) {
    for (const row of rowsOf(over)) {
      rows.push({ date: dateOf(period.start), zone: `UTC${formatOffset(grid.offset)}`, profile: settings.profile, gateway: gateway.href, scope: over.scope ?? '', ...row, currency: 'CNY', complete: periodEnded(period) });
    }
  }
  const spend = rows.reduce((sum, row) => sum.plus(row.amount), new Decimal(0)).toFixed();
  return { window, dayOffset: grid.offset, bucket, rows, skipped: periods.length - wanted.length - running.length, running, scope, accountSpend: account, incomplete: found.some((f) => f.over.incomplete), spend };
}

/** The default window: the last 7 days (or 7 days of hours) that have ended, on the gateway's grid. */
function lastCompleteDays(now: number, bucket: 'day' | 'hour', dayOffset: number): UsageWindow {
  const end = bucketStart(now, bucket, dayOffset);
  return { start: end - 7 * 86_400, end };
}

/** A period's records, one row per model (records without a decimal amount are not the ledger's). */
function rowsOf({ records, fields }: ModelSpendOver): Pick<LedgerRow, 'model' | 'calls' | 'input_tokens' | 'output_tokens' | 'amount'>[] {
  if (!fields) return [];
  const usage = usagePerModel(records.filter((r) => isDecimalString(r[fields.spend])), fields);
  return [...usage.entries()]
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .map(([model, u]) => ({ model, calls: u.calls?.toFixed() ?? '', input_tokens: u.input?.toFixed() ?? '', output_tokens: u.output?.toFixed() ?? '', amount: u.amount!.toFixed() }));
}
