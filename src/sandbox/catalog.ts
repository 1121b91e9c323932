// The public price catalog (GET /api/pricing) and the model lists (GET /v1/models, GET
// /alt/v1/models) of the sandbox, from the seed.
import { Decimal } from '../domain/money.js';
import { CATALOG, type CatalogModel, type SandboxKey, VENDORS } from './seed.js';

export const CATALOG_VERSION = 'sbx-2026.11.3';
/** The version before it, and what it charged (yuan per 1,000 tokens) for the models repriced since (`tally sandbox --reprice-after N`). */
export const PREVIOUS_CATALOG_VERSION = 'sbx-2026.11.2';
export const PREVIOUS_PRICES: Record<string, { input?: string; output?: string }> = {
  // Up by one ratio: a key's impact scales exactly.
  'deepseek-chat': { input: '0.00160000', output: '0.00240000' },
  // Only the output price changed.
  'claude-sonnet-4.5': { output: '0.09000000' },
  // Repriced, and not used by the demo key.
  'gpt-5': { input: '0.00700000', output: '0.05600000' },
};

/** The four text endpoint formats: any model is accepted on them. */
const TEXT_ENDPOINTS = ['openai', 'openai-response', 'openai-response-compact', 'anthropic'];

/**
 * supported_endpoint_types as the catalog's rule 3 infers them, from prices only: a per-second
 * price makes a video model, an image-output price an image model, and text is the fallback.
 */
export function inferEndpointTypes(prices: Record<string, string>): string[] {
  const priced = (pattern: RegExp) => Object.entries(prices).some(([name, value]) => pattern.test(name) && !new Decimal(value).isZero());
  if (priced(/second/)) return ['video-generation'];
  if (priced(/image/)) return ['image-generation'];
  return TEXT_ENDPOINTS;
}

function servicePricing(m: CatalogModel): Record<string, string> {
  return { input_unit_price: m.input, output_unit_price: m.output, cache_read_input_price: m.cacheRead, ...m.extraPrices };
}

/** Generated models that look like real ones, for catalogs of thousands of entries. */
function syntheticModels(count: number): CatalogModel[] {
  const models: CatalogModel[] = [];
  for (let i = 0; i < count; i++) {
    const template = CATALOG[i % CATALOG.length]!;
    models.push({ ...template, name: `${template.name}-ft-${String(i).padStart(5, '0')}`, input: new Decimal(template.input).mul(1 + (i % 7) / 10).toFixed(8) });
  }
  return models;
}

/** The catalog body: every enabled model, whatever the caller may use. */
export function catalogBody(size: number, previous = false): unknown {
  const groups = { default: 1, vip: 1.2, image: 1, video: 1 };
  return {
    success: true,
    pricing_version: previous ? PREVIOUS_CATALOG_VERSION : CATALOG_VERSION,
    auto_groups: ['default'],
    group_ratio: groups,
    usable_group: { default: 'standard models', vip: 'all text models', image: 'image generation', video: 'video generation' },
    supported_endpoint: {
      openai: { path: '/v1/chat/completions', method: 'POST' },
      'openai-response': { path: '/v1/responses', method: 'POST' },
      'openai-response-compact': { path: '/v1/responses/compact', method: 'POST' },
      anthropic: { path: '/v1/messages', method: 'POST' },
      'image-generation': { path: '/v1/images/generations', method: 'POST' },
      'video-generation': { path: '/v1/videos', method: 'POST' },
    },
    vendors: VENDORS,
    data: [...CATALOG, ...syntheticModels(size - CATALOG.length)].map((m) => (previous && PREVIOUS_PRICES[m.name] ? { ...m, ...PREVIOUS_PRICES[m.name] } : m)).map((m) => {
      const vendor = VENDORS.find((v) => v.name === m.vendor)!;
      const input = new Decimal(m.input);
      const ratio = m.staleRatio ?? input.mul(500).toNumber();
      const prices = servicePricing(m);
      return {
        model_name: m.name,
        quota_type: m.kind === 'per-call' || m.kind === 'video' || m.kind === 'image' ? 1 : 0,
        model_ratio: ratio,
        model_price: m.kind === 'per-call' ? new Decimal(m.extraPrices!.price_per_call!).toNumber() : 0,
        owner_by: m.vendor,
        completion_ratio: input.isZero() ? 1 : new Decimal(m.output).div(input).toDecimalPlaces(4).toNumber(),
        cache_ratio: input.isZero() ? 1 : new Decimal(m.cacheRead).div(input).toDecimalPlaces(4).toNumber(),
        enable_groups: m.groups,
        supported_endpoint_types: inferEndpointTypes(prices),
        billing_mode: m.kind === 'per-call' ? 'per_call' : m.kind === 'video' ? 'per_second' : m.kind === 'image' ? 'per_image' : 'per_token',
        vendor,
        context_window: m.contextWindow,
        max_output_tokens: m.maxOutput,
        reasoning_efforts: m.efforts,
        service_pricing: prices,
      };
    }),
  };
}

/** The models a key may use: enabled and in one of its groups, sorted by name. */
function visibleModels(key: SandboxKey): CatalogModel[] {
  return CATALOG.filter((m) => m.groups.some((g) => key.groups.includes(g))).sort((a, b) => (a.name < b.name ? -1 : 1));
}

export function modelList(key: SandboxKey): unknown {
  return {
    object: 'list',
    data: visibleModels(key).map((m, i) => ({
      id: m.name,
      object: 'model',
      created: 1_735_689_600 + i * 86_400,
      owned_by: 'sandbox-gateway',
      context_window: m.contextWindow,
      max_output_tokens: m.maxOutput,
      reasoning_efforts: m.efforts,
    })),
  };
}

export function altModelList(key: SandboxKey): unknown {
  const data = visibleModels(key).map((m, i) => ({
    type: 'model',
    id: m.name,
    display_name: m.name,
    created_at: new Date((1_735_689_600 + i * 86_400) * 1000).toISOString().replace('.000Z', 'Z'),
  }));
  return { data, has_more: false, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null };
}
