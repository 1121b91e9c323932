// What a run has fetched of the day series: one page of days asked for once serves every window on
// its grid inside it. A report's windows (the period, the one before, the forecast's month, the
// anomalies' history) are all days of the last 92, which one request covers; asking for each
// again costs a round trip each and lets two views of the same days disagree.
//
// Pages are held per API client, and a client lives for one computation (a --watch round or a
// metrics scrape builds its own): nothing fetched is served to a later refresh.
import type { HttpClient } from '../api/http.js';
import { type UsagePage, fetchUsage } from '../api/usage.js';
import { discoverShape, inferGridOffset, timeOf } from '../domain/buckets.js';
import type { UsageWindow } from '../domain/window.js';

const DAY = 86_400;

interface Held {
  asked: UsageWindow;
  page: Promise<UsagePage>;
}

const heldByClient = new WeakMap<HttpClient, Held[]>();

/**
 * The day buckets of `window`: cut from a page this run already holds when one covers it (whole
 * days on that page's grid, inside the days it surely served), else asked of the gateway and
 * held. A page cut out has no totals of its own (they are the buckets' sum).
 */
export async function dayPage(client: HttpClient, window: UsageWindow): Promise<UsagePage> {
  const held = heldByClient.get(client) ?? [];
  heldByClient.set(client, held);
  for (const candidate of held.filter((h) => h.asked.start <= window.start && window.end <= h.asked.end)) {
    // The same window asked twice (the grid's probe and a report's recent days) is the same page.
    if (candidate.asked.start === window.start && candidate.asked.end === window.end) return candidate.page;
    const page = await candidate.page.catch(() => undefined);
    const cut = page && cutFrom(page, candidate.asked, window);
    if (cut) return cut;
  }
  const page = fetchUsage(client, 'day', window);
  held.push({ asked: window, page });
  return page;
}

/** Asks for a page of days now (to be cut from by what follows), unless one held covers it. */
export function holdDays(client: HttpClient, window: UsageWindow): void {
  void dayPage(client, window).catch(() => undefined);
}

/**
 * The part of `page` (asked for `asked`) that answers `wanted`, or undefined when it cannot be
 * told exactly: `wanted` must start and end on the page's day grid, and lie inside the whole days
 * the page served whatever way the gateway aligns a window (from the first day boundary at or
 * after its start to the last at or before its end). A page without any bucket answers any
 * window inside it with none.
 */
export function cutFrom(page: UsagePage, asked: UsageWindow, wanted: UsageWindow): UsagePage | undefined {
  if (wanted.start < asked.start || wanted.end > asked.end) return undefined;
  if (page.buckets.length === 0) return { ...page, totals: undefined };
  const shape = discoverShape(page.buckets);
  if (!shape) return undefined;
  const offset = inferGridOffset(page.buckets, shape, DAY);
  if (offset === undefined) return undefined;
  const onGrid = (t: number) => (((t + offset) % DAY) + DAY) % DAY === 0;
  if (!onGrid(wanted.start) || !onGrid(wanted.end)) return undefined;
  const firstWhole = Math.ceil((asked.start + offset) / DAY) * DAY - offset;
  const lastWhole = Math.floor((asked.end + offset) / DAY) * DAY - offset;
  if (wanted.start < firstWhole || wanted.end > lastWhole) return undefined;
  const buckets = page.buckets.filter((bucket) => {
    const t = timeOf(bucket[shape.timeField]);
    return t >= wanted.start && t < wanted.end;
  });
  return { buckets, totals: undefined, cache: page.cache, scope: page.scope };
}
