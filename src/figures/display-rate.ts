// The display currency's rate for this run: --rate (dated today), or the rate source's (asked at
// most once a day, `GET SOURCE?from=CNY&to=CODE`, kept in the state folder with its own date, the
// fixing's). No rate (offline, a source in error, a code it does not know): the yuan alone and
// one line saying why, never a guessed or silently stale rate. The gateway's credential never
// goes to the rate source.
import { dirname } from 'node:path';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { type DisplayRate, currencyCode, rateText, readRateReply } from '../domain/display-currency.js';

/** How long a rate source may take to answer, at most (a part of --timeout where that is shorter). */
const RATE_WAIT_MS = 5000;

/** The rate the run shows amounts at, or undefined (said on stderr) when there is none to show. */
export async function displayRate(ctx: Context, request: { currency: string; rate?: string; source: string }): Promise<DisplayRate | undefined> {
  const code = currencyCode(request.currency);
  if (!code) throw new UsageError(`--currency "${request.currency.slice(0, 20)}" is not an ISO 4217 currency code (USD, EUR, JPY)`);
  if (code === 'CNY') return undefined;
  const found = await dayRate(ctx, { ...request, currency: code });
  if ('why' in found) {
    ctx.warn(`no ${code} beside the yuan: ${found.why}; amounts are in yuan alone`);
    return undefined;
  }
  return found;
}

/** The rate source the profile names (`rate_source`), else TALLY_RATE_SOURCE, else the default. */
export async function rateSource(ctx: Context): Promise<string> {
  const { DEFAULT_RATE_SOURCE } = await import('../settings/profile-rules.js');
  const record = ctx.options.demo ? undefined : await ctx.settings().then((settings) => settings.record, () => undefined);
  return record?.rate_source ?? ctx.env.TALLY_RATE_SOURCE ?? DEFAULT_RATE_SOURCE;
}

/**
 * The day's rate of `currency` (an ISO code, not CNY) per yuan: --rate's, the one kept today, or
 * the source's answer (kept); else why there is none (`the rate source HOST answered HTTP 404`).
 */
export async function dayRate(ctx: Context, request: { currency: string; rate?: string; source: string }): Promise<DisplayRate | { why: string }> {
  const code = request.currency;
  const today = new Date(ctx.now()).toISOString().slice(0, 10);
  if (request.rate !== undefined) {
    const rate = rateText(request.rate);
    if (!rate) throw new UsageError(`--rate "${request.rate.slice(0, 20)}" is not a positive decimal (${code} per yuan, e.g. 0.1378)`);
    return { currency: code, rate, date: today, source: '--rate' };
  }
  const [{ cachePath }, { readOwnStateFile }, { writeFileAtomic, ensurePrivateDir }, { parseJson }] = await Promise.all([import('../settings/cache-key.js'), import('../settings/read-file.js'), import('../settings/files.js'), import('../domain/json.js')]);
  const source = new URL(request.source);
  const file = cachePath(await ctx.stateDir(), `display-rate-${code}`, source);
  try {
    const kept = JSON.parse(readOwnStateFile(file, 16 * 1024).toString('utf8')) as Record<string, unknown>;
    const rate = typeof kept.rate === 'string' ? rateText(kept.rate) : undefined;
    if (kept.asked_on === today && rate && typeof kept.date === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(kept.date)) return { currency: code, rate, date: kept.date, source: source.href };
  } catch {
    // None kept today: asked.
  }
  const url = new URL(source.href);
  url.searchParams.set('from', 'CNY');
  url.searchParams.set('to', code);
  const said = (why: string) => ({ why: `the rate source ${source.host} ${why}` });
  let body: unknown;
  // A source that does not answer is one without a rate, within a part of the command's --timeout
  // (at most RATE_WAIT_MS): what the command shows in yuan is never lost waiting for a rate.
  const waitMs = Number.isFinite(ctx.deadline) ? Math.max(100, Math.min(RATE_WAIT_MS, Math.floor((ctx.deadline - ctx.now()) / 300) * 100)) : RATE_WAIT_MS;
  const waited = AbortSignal.timeout(waitMs);
  try {
    const answer = await ctx.transport()({ method: 'GET', url, headers: { accept: 'application/json', 'user-agent': 'tally' }, signal: AbortSignal.any([ctx.signal, waited]) });
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of answer.body) {
      size += chunk.length;
      if (size > 256 * 1024) return said('answered more than 256 KiB');
      chunks.push(Buffer.from(chunk));
    }
    if (answer.status !== 200) return said(`answered HTTP ${answer.status}`);
    body = parseJson(Buffer.concat(chunks).toString('utf8'));
  } catch (error) {
    if (ctx.interrupt.aborted || ctx.signal.aborted) throw error;
    if (waited.aborted) return said(`did not answer within ${waitMs / 1000} s`);
    return said(`could not be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message.slice(0, 80)})`);
  }
  const read = readRateReply(body, code);
  if ('why' in read) return said(`gave no rate: ${read.why}`);
  try {
    ensurePrivateDir(dirname(file), { own: true });
    writeFileAtomic(file, [JSON.stringify({ asked_on: today, rate: read.rate, date: read.date, source: source.href })], { mode: 0o600 });
  } catch {
    // Not kept: asked again next run.
  }
  return { currency: code, rate: read.rate, date: read.date, source: source.href };
}
