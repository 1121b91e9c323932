// A gateway's usage for figure tests that read the key's spend per model over a window: day
// buckets on UTC's grid (so the grid is learned as UTC's) and the same records of spend per model
// for any window, under field names of this gateway's own.
import type { mockGateway } from '../helpers.js';

const json = { headers: { 'content-type': 'application/json' } };

export function stubKeyUsage(gw: ReturnType<typeof mockGateway>, records: Record<string, unknown>[], now: number): void {
  gw.pool
    .intercept({ path: (p) => p.startsWith('/v1/open/usage?') })
    .reply((request) => {
      const url = new URL(String(request.path), 'https://gw.test');
      const [start, end] = [Number(url.searchParams.get('start')), Number(url.searchParams.get('end'))];
      const buckets = [];
      for (let t = Math.ceil(start / 86_400) * 86_400; t < Math.min(end, now / 1000); t += 86_400) buckets.push({ t, amount: '1.00' });
      return { statusCode: 200, data: JSON.stringify({ buckets, totals: {} }), responseOptions: json };
    })
    .persist();
  gw.pool
    .intercept({ path: (p) => p.startsWith('/v1/open/usage/models?') })
    .reply(200, JSON.stringify({ scope: 'key', models: records }), json)
    .persist();
}
