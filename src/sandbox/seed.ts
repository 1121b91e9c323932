// Seed data for the sandbox gateway: a price catalog, keys with group whitelists, and a
// deterministic history of calls with a daily rhythm and real gaps.
import { Decimal } from '../domain/money.js';

/** A small deterministic PRNG (mulberry32), so every sandbox has the same history. */
export function randomSource(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface CatalogModel {
  name: string;
  vendor: string;
  kind: 'chat' | 'reasoning' | 'embedding' | 'image' | 'video' | 'speech' | 'per-call';
  /** Yuan per 1,000 tokens (per call for per-call models). */
  input: string;
  output: string;
  cacheRead: string;
  /** Extra service_pricing fields (per-second, per-image, per-call prices). */
  extraPrices?: Record<string, string>;
  groups: string[];
  contextWindow: number;
  maxOutput: number;
  efforts: string[];
  /** A catalog whose ratios were not updated with the price (the table must ignore ratios). */
  staleRatio?: number;
}

export const VENDORS = [
  { id: '6f1c2b9e-1d0a-4c55-9f3e-0a5b2c1d7e01', name: 'OpenAI', slug: 'openai' },
  { id: '0b7d9a41-8c2e-4f6b-a1d3-5e9c7b2a4f02', name: 'Anthropic', slug: 'anthropic' },
  { id: '9e3a5c17-2b4d-4e8f-b6a0-1c7d3e5f9a03', name: 'Google', slug: 'google' },
  { id: '4a8c2e6b-0d1f-4b3a-9c5e-7f2a4b6c8d04', name: 'DeepSeek', slug: 'deepseek' },
  { id: 'c5e7a9b1-3d2f-4a6c-8e0b-2d4f6a8c0e05', name: 'Alibaba', slug: 'qwen' },
  { id: '2d4f6a8c-5e7b-4c9d-a1f3-3e5a7c9e1b06', name: 'Moonshot', slug: 'moonshot' },
  { id: '7b9d1f3a-6c8e-4d0a-b2c4-4f6b8d0a2c07', name: 'Zhipu', slug: 'zhipu' },
  { id: 'e1a3c5e7-7f9b-4e1d-83a5-5b7d9f1b3d08', name: 'MiniMax', slug: 'minimax' },
] as const;

const ALL_EFFORTS = ['none', 'low', 'medium', 'high'];
const REASONING_ONLY = ['low', 'medium', 'high', 'xhigh'];

export const CATALOG: CatalogModel[] = [
  { name: 'claude-haiku-4.5', vendor: 'Anthropic', kind: 'chat', input: '0.00700000', output: '0.03500000', cacheRead: '0.00070000', groups: ['default', 'vip'], contextWindow: 200000, maxOutput: 64000, efforts: ALL_EFFORTS },
  { name: 'claude-opus-4.1', vendor: 'Anthropic', kind: 'reasoning', input: '0.10500000', output: '0.52500000', cacheRead: '0.01050000', groups: ['vip'], contextWindow: 200000, maxOutput: 32000, efforts: ALL_EFFORTS },
  { name: 'claude-sonnet-4.5', vendor: 'Anthropic', kind: 'chat', input: '0.02100000', output: '0.10500000', cacheRead: '0.00210000', groups: ['default', 'vip'], contextWindow: 1000000, maxOutput: 64000, efforts: ALL_EFFORTS },
  { name: 'deepseek-chat', vendor: 'DeepSeek', kind: 'chat', input: '0.00200000', output: '0.00300000', cacheRead: '0.00020000', groups: ['default', 'vip'], contextWindow: 128000, maxOutput: 8192, efforts: ['none'] },
  { name: 'deepseek-reasoner', vendor: 'DeepSeek', kind: 'reasoning', input: '0.00400000', output: '0.01600000', cacheRead: '0.00100000', groups: ['default', 'vip'], contextWindow: 128000, maxOutput: 65536, efforts: ['high'], staleRatio: 1.5 },
  { name: 'gemini-2.5-flash', vendor: 'Google', kind: 'chat', input: '0.00210000', output: '0.01750000', cacheRead: '0.00021000', groups: ['default', 'vip'], contextWindow: 1048576, maxOutput: 65536, efforts: ALL_EFFORTS },
  { name: 'gemini-2.5-flash-image', vendor: 'Google', kind: 'image', input: '0.00210000', output: '0.00000000', cacheRead: '0.00000000', extraPrices: { image_output_price: '0.27300000' }, groups: ['image'], contextWindow: 32768, maxOutput: 8192, efforts: ['none'] },
  { name: 'gemini-2.5-pro', vendor: 'Google', kind: 'reasoning', input: '0.00875000', output: '0.07000000', cacheRead: '0.00218750', groups: ['vip'], contextWindow: 1048576, maxOutput: 65536, efforts: REASONING_ONLY.slice(0, 3) },
  { name: 'glm-4.6', vendor: 'Zhipu', kind: 'chat', input: '0.00200000', output: '0.00800000', cacheRead: '0.00040000', groups: ['default', 'vip'], contextWindow: 200000, maxOutput: 128000, efforts: ['none', 'high'] },
  { name: 'glm-4.5-air', vendor: 'Zhipu', kind: 'chat', input: '0.00080000', output: '0.00200000', cacheRead: '0.00016000', groups: ['default'], contextWindow: 128000, maxOutput: 96000, efforts: ['none', 'high'] },
  { name: 'gpt-4.1', vendor: 'OpenAI', kind: 'chat', input: '0.01400000', output: '0.05600000', cacheRead: '0.00350000', groups: ['default', 'vip'], contextWindow: 1047576, maxOutput: 32768, efforts: ['none'] },
  { name: 'gpt-4.1-mini', vendor: 'OpenAI', kind: 'chat', input: '0.00280000', output: '0.01120000', cacheRead: '0.00070000', groups: ['default', 'vip'], contextWindow: 1047576, maxOutput: 32768, efforts: ['none'] },
  { name: 'gpt-4.1-nano', vendor: 'OpenAI', kind: 'chat', input: '0.00070000', output: '0.00280000', cacheRead: '0.00017500', groups: ['default', 'vip'], contextWindow: 1047576, maxOutput: 32768, efforts: ['none'] },
  { name: 'gpt-5', vendor: 'OpenAI', kind: 'reasoning', input: '0.00875000', output: '0.07000000', cacheRead: '0.00087500', groups: ['default', 'vip'], contextWindow: 400000, maxOutput: 128000, efforts: ['low', 'medium', 'high'] },
  { name: 'gpt-5-codex', vendor: 'OpenAI', kind: 'reasoning', input: '0.00875000', output: '0.07000000', cacheRead: '0.00087500', groups: ['vip'], contextWindow: 400000, maxOutput: 128000, efforts: ['low', 'medium', 'high', 'xhigh'] },
  { name: 'gpt-5-mini', vendor: 'OpenAI', kind: 'reasoning', input: '0.00175000', output: '0.01400000', cacheRead: '0.00017500', groups: ['default', 'vip'], contextWindow: 400000, maxOutput: 128000, efforts: ['none', 'low', 'medium', 'high'] },
  { name: 'gpt-5-nano', vendor: 'OpenAI', kind: 'reasoning', input: '0.00035000', output: '0.00280000', cacheRead: '0.00003500', groups: ['default', 'vip'], contextWindow: 400000, maxOutput: 128000, efforts: ['none', 'low', 'medium', 'high'] },
  { name: 'gpt-image-1', vendor: 'OpenAI', kind: 'image', input: '0.03500000', output: '0.00000000', cacheRead: '0.00875000', extraPrices: { image_output_price: '0.29400000' }, groups: ['image'], contextWindow: 32768, maxOutput: 4096, efforts: ['none'] },
  { name: 'gpt-oss-120b', vendor: 'OpenAI', kind: 'chat', input: '0.00000000', output: '0.00420000', cacheRead: '0.00000000', groups: ['default', 'vip'], contextWindow: 131072, maxOutput: 32768, efforts: ['low', 'medium', 'high'] },
  { name: 'kimi-k2', vendor: 'Moonshot', kind: 'chat', input: '0.00400000', output: '0.01600000', cacheRead: '0.00100000', groups: ['default', 'vip'], contextWindow: 262144, maxOutput: 16384, efforts: ['none'] },
  { name: 'kimi-k2-thinking', vendor: 'Moonshot', kind: 'reasoning', input: '0.00400000', output: '0.01600000', cacheRead: '0.00100000', groups: ['vip'], contextWindow: 262144, maxOutput: 16384, efforts: ['medium', 'high'] },
  { name: 'minimax-m2', vendor: 'MiniMax', kind: 'chat', input: '0.00210000', output: '0.00840000', cacheRead: '0.00021000', groups: ['default', 'vip'], contextWindow: 204800, maxOutput: 131072, efforts: ['high'] },
  { name: 'minimax-speech-02', vendor: 'MiniMax', kind: 'speech', input: '0.35000000', output: '0.00000000', cacheRead: '0.00000000', groups: ['vip'], contextWindow: 10000, maxOutput: 0, efforts: ['none'] },
  { name: 'o3', vendor: 'OpenAI', kind: 'reasoning', input: '0.01400000', output: '0.05600000', cacheRead: '0.00350000', groups: ['vip'], contextWindow: 200000, maxOutput: 100000, efforts: ['low', 'medium', 'high'] },
  { name: 'o4-mini', vendor: 'OpenAI', kind: 'reasoning', input: '0.00770000', output: '0.03080000', cacheRead: '0.00192500', groups: ['default', 'vip'], contextWindow: 200000, maxOutput: 100000, efforts: ['low', 'medium', 'high'] },
  { name: 'qwen3-coder-plus', vendor: 'Alibaba', kind: 'chat', input: '0.00400000', output: '0.01600000', cacheRead: '0.00040000', groups: ['default', 'vip'], contextWindow: 1000000, maxOutput: 65536, efforts: ['none'] },
  { name: 'qwen3-max', vendor: 'Alibaba', kind: 'chat', input: '0.00600000', output: '0.02400000', cacheRead: '0.00060000', groups: ['vip'], contextWindow: 262144, maxOutput: 65536, efforts: ['none'] },
  { name: 'qwen3-vl-plus', vendor: 'Alibaba', kind: 'chat', input: '0.00100000', output: '0.01000000', cacheRead: '0.00010000', groups: ['default', 'vip'], contextWindow: 262144, maxOutput: 32768, efforts: ['none', 'low', 'medium', 'high'] },
  { name: 'qwen-image-edit', vendor: 'Alibaba', kind: 'per-call', input: '0.00000000', output: '0.00000000', cacheRead: '0.00000000', extraPrices: { price_per_call: '0.30000000' }, groups: ['image'], contextWindow: 8192, maxOutput: 0, efforts: ['none'] },
  { name: 'sora-2', vendor: 'OpenAI', kind: 'video', input: '0.00000000', output: '0.00000000', cacheRead: '0.00000000', extraPrices: { video_price_per_second: '0.70000000' }, groups: ['video'], contextWindow: 0, maxOutput: 0, efforts: ['none'] },
  { name: 'text-embedding-3-large', vendor: 'OpenAI', kind: 'embedding', input: '0.00091000', output: '0.00000000', cacheRead: '0.00000000', groups: ['default', 'vip'], contextWindow: 8191, maxOutput: 0, efforts: ['none'] },
  { name: 'text-embedding-3-small', vendor: 'OpenAI', kind: 'embedding', input: '0.00014000', output: '0.00000000', cacheRead: '0.00000000', groups: ['default', 'vip'], contextWindow: 8191, maxOutput: 0, efforts: ['none'] },
  { name: 'text-embedding-v4', vendor: 'Alibaba', kind: 'embedding', input: '0.00050000', output: '0.00000000', cacheRead: '0.00000000', groups: ['default', 'vip'], contextWindow: 8192, maxOutput: 0, efforts: ['none'] },
  { name: 'veo-3', vendor: 'Google', kind: 'video', input: '0.00000000', output: '0.00000000', cacheRead: '0.00000000', extraPrices: { video_price_per_second: '2.80000000' }, groups: ['video'], contextWindow: 0, maxOutput: 0, efforts: ['none'] },
  { name: 'wan-2.5-t2v', vendor: 'Alibaba', kind: 'video', input: '0.00000000', output: '0.00000000', cacheRead: '0.00000000', extraPrices: { video_price_per_second: '0.35000000' }, groups: ['video'], contextWindow: 0, maxOutput: 0, efforts: ['none'] },
];

export interface SandboxAccount {
  /** The account's id (never sent: the gateway does not publish one). */
  id: string;
  /** What was paid in: balance = top-ups − lifetime spend. */
  topUps: Decimal;
  /** Seed of its call history, and how busy it is against the main account. */
  seed: number;
  activity: number;
}

export interface SandboxKey {
  secret: string;
  name: string;
  prefix: string;
  /** The account the key spends from. */
  account: string;
  groups: string[];
  dailyCostLimit: string | null;
  /** When set, the compatible billing endpoints report this key's spend. */
  totalCostLimit: string | null;
  /** Share of the account's calls made with this key (deterministic split). */
  share: number;
  /** The token-usage record's quota is unlimited. */
  unlimitedQuota: boolean;
  /** The token-usage record's expires_at (Unix seconds; 0 is never). */
  expiresAt: number;
}

export const TOP_UPS = new Decimal('6000.00000000');

/**
 * The sandbox's world is as large as its users': two accounts, several keys on each (with and
 * without a daily limit, with and without a total quota, one with a model-group whitelist), and
 * device tokens that sign in to the main account.
 */
export const ACCOUNTS: SandboxAccount[] = [
  { id: 'acct-main', topUps: TOP_UPS, seed: 7, activity: 1 },
  { id: 'acct-beta', topUps: new Decimal('1500.00000000'), seed: 29, activity: 0.35 },
];

export const DEMO_KEY = 'sbx-sk-demo7f3a9c2e5b8d1f4a6c0e2b7d9f1a3c5e';
export const LIMITED_KEY = 'sbx-sk-ltd4b6d8f0a2c4e6b8d0f2a4c6e8b0d2f4a6c8';
export const UNLIMITED_KEY = 'sbx-sk-unl9e1c3a5e7b9d1f3a5c7e9b1d3f5a7c9e1b';
export const BETA_KEY = 'sbx-sk-bta2c4e6a8c0e2a4c6e8a0c2e4a6c8e0a2c4e6a';
export const BETA_BATCH_KEY = 'sbx-sk-btb5d7f9b1d3f5b7d9f1b3d5f7b9d1f3b5d7f9b';

export const KEYS: SandboxKey[] = [
  { secret: DEMO_KEY, name: 'demo', prefix: DEMO_KEY.slice(0, 11), account: 'acct-main', groups: ['default', 'vip', 'image', 'video'], dailyCostLimit: '50.00000000', totalCostLimit: null, share: 0.8, unlimitedQuota: true, expiresAt: 0 },
  { secret: LIMITED_KEY, name: 'ci-runner', prefix: LIMITED_KEY.slice(0, 11), account: 'acct-main', groups: ['default'], dailyCostLimit: '5.00000000', totalCostLimit: '200.00000000', share: 0.2, unlimitedQuota: false, expiresAt: 1_830_297_600 },
  // Makes no calls of its own: a key without quota limits, as some keys of the compatible family are.
  { secret: UNLIMITED_KEY, name: 'unlimited', prefix: UNLIMITED_KEY.slice(0, 11), account: 'acct-main', groups: ['default'], dailyCostLimit: null, totalCostLimit: null, share: 0, unlimitedQuota: true, expiresAt: -1 },
  // The second account: a key with a daily limit and no quota, and a batch key with a quota and no daily limit.
  { secret: BETA_KEY, name: 'beta-app', prefix: BETA_KEY.slice(0, 11), account: 'acct-beta', groups: ['default', 'vip'], dailyCostLimit: '20.00000000', totalCostLimit: null, share: 0.7, unlimitedQuota: true, expiresAt: 0 },
  { secret: BETA_BATCH_KEY, name: 'beta-batch', prefix: BETA_BATCH_KEY.slice(0, 11), account: 'acct-beta', groups: ['default'], dailyCostLimit: null, totalCostLimit: '500.00000000', share: 0.3, unlimitedQuota: false, expiresAt: 0 },
];

export function accountOf(key: SandboxKey): SandboxAccount {
  return ACCOUNTS.find((a) => a.id === key.account)!;
}

export interface Call {
  id: string;
  /** Unix seconds. */
  at: number;
  model: string;
  key: string;
  promptTokens: number;
  completionTokens: number;
  cost: Decimal;
  latencyMs: number;
  /** The account it was billed to. */
  account: string;
  /** How the call ended, as the log says (default success). */
  status?: 'success' | 'failed';
  /** Token classes beyond in and out (`tally sandbox --token-classes`): prompt tokens read from the cache (part of promptTokens), reasoning tokens (part of completionTokens). */
  cacheReadTokens?: number;
  reasoningTokens?: number;
}

export const HISTORY_DAYS = 130;

const HOURLY_RHYTHM = [0.2, 0.1, 0.05, 0, 0, 0, 0.1, 0.4, 1.2, 2.4, 3, 2.8, 1.6, 2.2, 3, 3.2, 2.8, 2.2, 1.4, 0.9, 0.8, 0.7, 0.5, 0.3];
const BUSY_MODELS = ['gpt-5-mini', 'claude-sonnet-4.5', 'deepseek-chat', 'gpt-4.1-mini', 'qwen3-coder-plus', 'gemini-2.5-flash', 'glm-4.6', 'text-embedding-3-small'];

/**
 * Calls over the last HISTORY_DAYS days up to `now`, in time order. The rhythm follows the
 * given UTC offset (a team working days in that zone); weekends are quiet and one week in the
 * middle has no calls at all, so both hourly and daily series have real gaps.
 */
export function seedCalls(now: number, offsetMinutes: number, seed = 0, modes: { offCatalog?: boolean; tokenClasses?: boolean } = {}): Call[] {
  let calls = [...ACCOUNTS.flatMap((account) => seedAccountCalls(account, now, offsetMinutes, seed)), ...storyCalls(now, offsetMinutes, seed)].sort((a, b) => a.at - b.at || a.id.localeCompare(b.id));
  if (modes.tokenClasses) calls = calls.map(withTokenClasses);
  return modes.offCatalog ? calls.map((call, i) => chargedOffCatalog(call, i, now)) : calls;
}

/**
 * `tally sandbox --token-classes`: the models with a prompt cache read part of their prompt from
 * it (claude-*: 60%, gpt-5-mini and deepseek-chat: 30%), billed at the cache price; the reasoning
 * models think (o3: 40% of the completion, gpt-5-mini: 20%), billed as output. Costs follow the
 * catalog exactly: (prompt − cached) × input + cached × cache read + completion × output.
 */
export const TOKEN_CLASSES = { cacheShare: { 'claude-': 0.6, 'gpt-5-mini': 0.3, 'deepseek-chat': 0.3 }, reasoningShare: { o3: 0.4, 'gpt-5-mini': 0.2 } } as const;

function withTokenClasses(call: Call): Call {
  const share = (table: Record<string, number>) => Object.entries(table).find(([prefix]) => call.model.startsWith(prefix))?.[1] ?? 0;
  const cached = Math.floor(call.promptTokens * share(TOKEN_CLASSES.cacheShare));
  const reasoning = Math.floor(call.completionTokens * share(TOKEN_CLASSES.reasoningShare));
  if (cached === 0 && reasoning === 0) return call;
  const m = CATALOG.find((c) => c.name === call.model)!;
  const cost = call.cost.isZero()
    ? call.cost
    : new Decimal(m.input).mul(call.promptTokens - cached).plus(new Decimal(m.cacheRead).mul(cached)).plus(new Decimal(m.output).mul(call.completionTokens)).div(1000).toDecimalPlaces(8);
  return { ...call, cost, ...(cached ? { cacheReadTokens: cached } : {}), ...(reasoning ? { reasoningTokens: reasoning } : {}) };
}

/**
 * What `tally sandbox --off-catalog` charges differently from its catalog, in the last two weeks
 * (what `tally audit` finds): gpt-4.1-mini at 1.2 times its output price; every 5th
 * deepseek-chat call failed and was charged anyway.
 */
export const OFF_CATALOG = { wrongRatioModel: 'gpt-4.1-mini', outputFactor: '1.2', failedModel: 'deepseek-chat', failedEvery: 5, days: 14 } as const;

function chargedOffCatalog(call: Call, index: number, now: number): Call {
  if (call.at < now - OFF_CATALOG.days * 86_400) return call;
  const model = CATALOG.find((m) => m.name === call.model)!;
  if (call.model === OFF_CATALOG.wrongRatioModel) {
    const cost = new Decimal(model.input).mul(call.promptTokens).plus(new Decimal(model.output).mul(OFF_CATALOG.outputFactor).mul(call.completionTokens)).div(1000).toDecimalPlaces(8);
    return { ...call, cost };
  }
  if (call.model === OFF_CATALOG.failedModel && index % OFF_CATALOG.failedEvery === 0) return { ...call, status: 'failed' };
  return call;
}

/**
 * What `tally anomalies` and `usage --compare` are for, on the main account's demo key (drawn
 * from a source of their own, so the rest of the history is the same with or without them):
 * - a spike: an afternoon of claude-opus-4.1 three days ago, many times a usual day;
 * - a model that starts: o3, every weekday of the last six days;
 * - a model that stops: gpt-4.1, used from 60 to 32 days ago and not since;
 * - calls with tokens and no cost: qwen3-vl-plus in the last two days.
 */
export const STORY = { spikeModel: 'claude-opus-4.1', spikeDaysAgo: 3, newModel: 'o3', newSinceDaysAgo: 6, stoppedModel: 'gpt-4.1', stoppedDaysAgo: [60, 32], zeroCostModel: 'qwen3-vl-plus' } as const;

function storyCalls(now: number, offsetMinutes: number, seed: number): Call[] {
  const random = randomSource(0x5107 + seed * 1000);
  const prices = new Map(CATALOG.map((m) => [m.name, m]));
  const offset = offsetMinutes * 60;
  // Local midnight of today on the team's zone.
  const today = Math.floor((now + offset) / 86_400) * 86_400 - offset;
  const calls: Call[] = [];
  let serial = 0;
  const call = (model: string, at: number, prompt: number, completion: number, free = false) => {
    if (at > now) return;
    const m = prices.get(model)!;
    const cost = free ? new Decimal(0) : new Decimal(m.input).mul(prompt).plus(new Decimal(m.output).mul(completion)).div(1000).toDecimalPlaces(8);
    calls.push({ id: `story_${(++serial).toString(36).padStart(5, '0')}`, at, model, key: DEMO_KEY, promptTokens: prompt, completionTokens: completion, cost, latencyMs: 2000 + Math.floor(random() * 20_000), account: ACCOUNTS[0]!.id });
  };
  const weekday = (dayStart: number) => {
    const day = new Date((dayStart + offset) * 1000).getUTCDay();
    return day !== 0 && day !== 6;
  };
  const spikeDay = today - STORY.spikeDaysAgo * 86_400;
  for (let i = 0; i < 14; i++) call(STORY.spikeModel, spikeDay + 14 * 3600 + Math.floor(random() * 7200), 20_000 + Math.floor(random() * 10_000), 2_000 + Math.floor(random() * 2_000));
  for (let d = STORY.newSinceDaysAgo; d >= 0; d--) {
    const day = today - d * 86_400;
    if (!weekday(day)) continue;
    for (let i = 0; i < 5; i++) call(STORY.newModel, day + 9 * 3600 + Math.floor(random() * 8 * 3600), 15_000 + Math.floor(random() * 10_000), 1_500 + Math.floor(random() * 2_000));
  }
  for (let d = STORY.stoppedDaysAgo[0]; d >= STORY.stoppedDaysAgo[1]; d--) {
    const day = today - d * 86_400;
    if (!weekday(day)) continue;
    call(STORY.stoppedModel, day + 10 * 3600 + Math.floor(random() * 6 * 3600), 12_000 + Math.floor(random() * 8_000), 1_000 + Math.floor(random() * 1_500));
  }
  for (let d = 1; d >= 0; d--) for (let i = 0; i < 3; i++) call(STORY.zeroCostModel, today - d * 86_400 + 8 * 3600 + Math.floor(random() * 10 * 3600), 3_000 + Math.floor(random() * 2_000), 400 + Math.floor(random() * 400), true);
  return calls;
}

/** One account's calls; `seed` other than 0 gives another history of the same shape (tests run properties over several). */
function seedAccountCalls(account: SandboxAccount, now: number, offsetMinutes: number, seed: number): Call[] {
  const random = randomSource(account.seed + seed * 1000);
  const keys = KEYS.filter((k) => k.account === account.id && k.share > 0);
  const pickKey = (draw: number): string => {
    let acc = 0;
    for (const key of keys) if (draw < (acc += key.share)) return key.secret;
    return keys[keys.length - 1]!.secret;
  };
  const tag = account.id === ACCOUNTS[0]!.id ? 'call' : `call${account.id.slice(-1)}`;
  const prices = new Map(CATALOG.map((m) => [m.name, m]));
  const calls: Call[] = [];
  const endHour = Math.floor(now / 3600) * 3600;
  const startHour = endHour - HISTORY_DAYS * 86_400;
  let serial = 0;
  for (let hour = startHour; hour <= endHour; hour += 3600) {
    const local = new Date((hour + offsetMinutes * 60) * 1000);
    const daysAgo = Math.floor((endHour - hour) / 86_400);
    if (daysAgo >= 40 && daysAgo < 47) continue; // a holiday week
    const weekend = local.getUTCDay() === 0 || local.getUTCDay() === 6;
    const rate = HOURLY_RHYTHM[local.getUTCHours()]! * (weekend ? 0.15 : 1) * account.activity;
    const count = Math.floor(rate * 2 * random() + (random() < rate % 1 ? 1 : 0));
    for (let i = 0; i < count; i++) {
      const at = hour + Math.floor(random() * 3600);
      if (at > now) continue;
      const model = prices.get(BUSY_MODELS[Math.floor(random() * random() * BUSY_MODELS.length)]!)!;
      const promptTokens = 200 + Math.floor(random() * random() * 24_000);
      const completionTokens = model.kind === 'embedding' ? 0 : 50 + Math.floor(random() * 3_000);
      const cost = new Decimal(model.input).mul(promptTokens).plus(new Decimal(model.output).mul(completionTokens)).div(1000).toDecimalPlaces(8);
      calls.push({
        id: `${tag}_${(++serial).toString(36).padStart(6, '0')}`,
        at,
        model: model.name,
        key: pickKey(random()),
        promptTokens,
        completionTokens,
        cost,
        latencyMs: 300 + Math.floor(random() * 9000),
        account: account.id,
      });
    }
  }
  return calls;
}
