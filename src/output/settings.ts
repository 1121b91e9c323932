// How tally's own settings read: the notify destinations stored for a profile (masked) and the
// settings that apply, each with where it comes from.
import type { Context } from '../context.js';

/** `notify list`: a row per destination, its URL masked. */
export async function renderDestinations(rows: { name: string; kind: string; masked: string }[], ctx: Context): Promise<string> {
  const [{ renderTable }, { styleFor }] = await Promise.all([import('./table.js'), import('./style.js')]);
  return renderTable({ columns: [{ header: 'name' }, { header: 'kind' }, { header: 'destination (masked)' }], rows: rows.map((d) => [d.name, d.kind, d.masked]) }, await styleFor(ctx));
}

/** `config list`: each setting, its value (— when unset) and where it comes from, then the profile. */
export async function renderSettings(profile: string, rows: { key: string; value: string | null; from: string }[], ctx: Context): Promise<string> {
  const [{ renderTable }, { styleFor }] = await Promise.all([import('./table.js'), import('./style.js')]);
  const table = await renderTable({ columns: [{ header: 'setting' }, { header: 'value', dropOrder: 0 }, { header: 'from', dropOrder: 1 }], rows: rows.map((e) => [e.key, e.value ?? '—', e.from]) }, await styleFor(ctx));
  return `${table}profile "${profile}"\n`;
}
