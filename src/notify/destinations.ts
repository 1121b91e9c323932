// The profile's notify destinations, as stored by `tally notify add`; each URL joins the run's
// secrets as it is read, so no message, log line or error can carry it.
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import type { Destination } from './send.js';
import { storedNamesHint } from '../domain/suggest.js';

/** The profile's destinations (their URLs are added to the run's secrets). */
export async function storedDestinations(ctx: Context): Promise<Destination[]> {
  const record = await ctx.profileRecord();
  return Object.entries(record?.notify ?? {}).map(([name, d]) => {
    ctx.secrets.add(d.url);
    ctx.secrets.add(d.secret);
    return { name, kind: d.kind, url: d.url, ...(d.secret ? { secret: d.secret } : {}) };
  });
}

/** The named destinations, each stored; a name that is not is exit 2, listing those there are. */
export async function destinationsNamed(ctx: Context, names: string[]): Promise<Destination[]> {
  const stored = await storedDestinations(ctx);
  return names.map((name) => {
    const found = stored.find((d) => d.name === name);
    if (!found) throw new UsageError(`there is no notify destination "${name}"`, { hint: storedNamesHint(name, stored.map((d) => d.name), 'Destinations', 'Add one with `tally notify add NAME --kind slack < url.txt`.') });
    return found;
  });
}
