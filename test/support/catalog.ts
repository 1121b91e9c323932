// A price catalog as GET /api/pricing sends it (the spec's fields), for figure tests: per-token
// records with the absolute prices of `service_pricing` (decimal strings, per 1,000 tokens).
export function catalogRow(name: string, prices: { input?: string; output?: string; cacheRead?: string } = {}) {
  return {
    model_name: name,
    quota_type: 0,
    model_ratio: 1,
    model_price: 0,
    owner_by: 'v',
    completion_ratio: 2,
    enable_groups: ['default'],
    supported_endpoint_types: ['openai'],
    billing_mode: 'per_token',
    vendor: { id: '0b3f1b6e-9c1a-4c55-8f3e-2d7f7c1d2a11', name: 'v', slug: 'v' },
    ...(prices.input === undefined ? {} : { service_pricing: { input_unit_price: prices.input, output_unit_price: prices.output ?? '0.008', cache_read_input_price: prices.cacheRead ?? '0' } }),
  };
}

/** The catalog document of `rows` under `version`. */
export function catalogBody(version: string, rows: ReturnType<typeof catalogRow>[]): string {
  return JSON.stringify({ success: true, pricing_version: version, auto_groups: [], group_ratio: { default: 1 }, usable_group: {}, supported_endpoint: {}, vendors: [], data: rows });
}
