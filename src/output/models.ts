// How the models a key may call read: a table (the list's own figures, and the catalog's prices
// when asked) whose least important columns give way on a narrow terminal, and what the filters
// left, or why they left nothing.
import type { Context } from '../context.js';
import { reasoningLabel, stringList } from '../domain/catalog.js';
import { type JsonObject, isJsonNumber, numberText } from '../domain/json.js';
import type { ModelList } from '../figures/model-list.js';
import { canReason, contextOf } from '../domain/catalog.js';
import { escapeControl } from './escape.js';
import { priceCells } from './prices.js';

export async function renderModels(list: ModelList, ctx: Context): Promise<string> {
  const { listed, models, catalog, priceOf, alt, minContext } = list;
  const priced = catalog !== undefined;
  const [{ renderTable }, { styleFor }, { formatCount }, { fitLines }] = await Promise.all([import('./table.js'), import('./style.js'), import('./money.js'), import('./wrap.js')]);
  const style = await styleFor(ctx);
  const prices = priced && (await priceCells(ctx.options.exact));
  const count = (value: unknown) => (isJsonNumber(value) && numberText(value) !== '0' ? formatCount(numberText(value)) : '—');
  const cells = (m: JsonObject) =>
    alt
      ? [String(m.id), typeof m.created_at === 'string' ? m.created_at : '', typeof m.display_name === 'string' ? m.display_name : '']
      : [String(m.id), count(m.context_window), count(m.max_output_tokens), reasoningLabel(stringList(m.reasoning_efforts))];
  const columns = [
    { header: 'model' },
    ...(alt
      ? [{ header: 'created', dropOrder: 6 }, { header: 'display name', dropOrder: 7 }]
      : [{ header: 'context', align: 'decimal' as const, dropOrder: 5 }, { header: 'max output', align: 'decimal' as const, dropOrder: 6 }, { header: 'reasoning', dropOrder: 7 }]),
    ...(priced
      ? [
          { header: 'input ¥/1M', align: 'decimal' as const, dropOrder: 4 },
          { header: 'output ¥/1M', align: 'decimal' as const, dropOrder: 3 },
          { header: 'cache read ¥/1M', align: 'decimal' as const, dropOrder: 8 },
          // Per call, second or image: the only price some models have, so it goes last.
          { header: 'other prices (¥)', dropOrder: 2 },
        ]
      : []),
  ];
  const rows = models.map((m) => (prices ? [...cells(m), ...prices(priceOf(m))] : cells(m)));
  const filtered = models.length < listed.length;
  const counted = models.length === 0 && filtered ? whyNone(listed, minContext, list.reasoning) : `${filtered ? `${models.length} of ${listed.length}` : models.length} model${listed.length === 1 ? '' : 's'} this key may call`;
  const note = `${counted}${catalog ? ` · prices from catalog ${escapeControl(catalog.pricingVersion ?? '(no version)')} (${catalog.source === 'live' ? 'fetched now' : 'cached'}), yuan per 1M tokens` : ''}`;
  return `${await renderTable({ columns, rows }, style)}${style.paint.dim(await fitLines(note, style.width))}\n`;
}

/** Why a filter left nothing, and what there is instead. */
function whyNone(models: JsonObject[], minContext: number | undefined, reasoning: boolean): string {
  const asked = [minContext !== undefined && `a context of at least ${minContext.toLocaleString('en-US')} tokens`, reasoning && 'reasoning'].filter(Boolean).join(' and ');
  const largest = Math.max(0, ...models.filter((m) => !reasoning || canReason(m)).map(contextOf));
  const reasoners = models.filter(canReason).length;
  const facts = [`the largest context${reasoning ? ' of a reasoning model' : ''} is ${largest.toLocaleString('en-US')} tokens`, `${reasoners} of the ${models.length} can reason`];
  return `no model this key may call has ${asked}: ${facts.join('; ')}`;
}
