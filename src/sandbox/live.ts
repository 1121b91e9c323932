// Calls that happen while the sandbox runs. `tally sandbox --live` makes one every few seconds of
// its clock, at the seeded mix of models and keys of the main account, so the per-call log, the
// usage, the balance and the key's daily spend grow as a real gateway's do (logs --follow, the
// status line's session, tally run). The generation stand-in (POST /v1/chat/completions) records
// a call for the key that asks, priced from the catalog, so a test's script can spend money.
// Calls are made when a request comes (the clock decides which are due): a moved clock moves them.
import { Decimal } from '../domain/money.js';
import { ACCOUNTS, CATALOG, type Call, type CatalogModel, KEYS, type SandboxKey, randomSource } from './seed.js';

const LIVE_MODELS = ['gpt-5-mini', 'claude-sonnet-4.5', 'deepseek-chat', 'gpt-4.1-mini', 'qwen3-coder-plus'];

export class LiveCalls {
  readonly #calls: () => Call[];
  readonly #now: () => number;
  readonly #everyMs: number | undefined;
  readonly #random: () => number;
  /** The clock's time (ms) up to which live calls were made. */
  #madeUntil: number | undefined;
  #serial = 0;

  constructor(calls: () => Call[], options: { now: () => number; everyMs?: number; seed?: number }) {
    this.#calls = calls;
    this.#now = options.now;
    this.#everyMs = options.everyMs;
    this.#random = randomSource(0x11fe + (options.seed ?? 0) * 1000);
  }

  /** Makes the live calls due by now (none without --live), in time order after what the log holds. */
  advance(): void {
    if (this.#everyMs === undefined) return;
    const now = this.#now();
    this.#madeUntil ??= now;
    const keys = KEYS.filter((k) => k.account === ACCOUNTS[0]!.id && k.share > 0);
    for (let at = this.#madeUntil + this.#everyMs; at <= now; at += this.#everyMs) {
      this.#madeUntil = at;
      let draw = this.#random();
      const key = keys.find((k) => (draw -= k.share) < 0) ?? keys[0]!;
      const name = LIVE_MODELS[Math.floor(this.#random() * LIVE_MODELS.length)];
      const model = CATALOG.find((m) => m.name === name)!;
      this.#push(key, model, 300 + Math.floor(this.#random() * 6000), 50 + Math.floor(this.#random() * 1500), Math.floor(at / 1000), 'live');
    }
  }

  /** A call the generation stand-in answered for `key`: priced from the catalog, in the log at once. */
  record(key: SandboxKey, model: CatalogModel, promptTokens: number, completionTokens: number): Call {
    this.advance();
    return this.#push(key, model, promptTokens, completionTokens, Math.floor(this.#now() / 1000), 'gen');
  }

  #push(key: SandboxKey, model: CatalogModel, promptTokens: number, completionTokens: number, at: number, tag: string): Call {
    const completion = model.kind === 'embedding' ? 0 : completionTokens;
    const cost = new Decimal(model.input).mul(promptTokens).plus(new Decimal(model.output).mul(completion)).div(1000).toDecimalPlaces(8);
    const call: Call = { id: `${tag}_${(++this.#serial).toString(36).padStart(6, '0')}`, at, model: model.name, key: key.secret, promptTokens, completionTokens: completion, cost, latencyMs: 400 + Math.floor(this.#random() * 4000), account: key.account };
    this.#calls().push(call);
    return call;
  }
}

/**
 * The answer to POST /v1/chat/completions: the model asked for, if the key may call it, answers
 * with a fixed text and the usage it was billed for (the prompt's length in tokens, about four
 * characters each, and `max_tokens` or 256 out).
 */
export interface Generated {
  status: number;
  body: unknown;
  /** A streamed answer's events, each as sent. */
  stream?: string[];
  /** The call's id in the log (sent as x-request-id, as gateways name a call). */
  requestId?: string;
}

/** The call a generation request asks for, recorded; or the gateway's refusal of it. */
function generate(live: LiveCalls, key: SandboxKey, body: unknown, endpoint: string): { request: Record<string, unknown>; model: CatalogModel; call: Call } | { status: number; body: unknown } {
  const request = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  const envelope = (status: number, type: string, code: string, message: string) => ({ status, body: { error: { type, code, message, request_id: 'sbx-req' }, request_id: 'sbx-req' } });
  const model = CATALOG.find((m) => m.name === request.model);
  if (!model) return envelope(404, 'invalid_request_error', 'model_not_found', `the model ${JSON.stringify(request.model)} does not exist`);
  if (!model.groups.some((g) => key.groups.includes(g))) return envelope(403, 'permission_error', 'model_not_allowed', `this key may not call ${model.name}`);
  if (model.kind !== 'chat' && model.kind !== 'reasoning') return envelope(503, 'service_unavailable', 'endpoint_unsupported_by_providers', `${model.name} has no upstream for ${endpoint}`);
  // The prompt's length in tokens, about four characters each (a messages request's system prompt too).
  const asked = endpoint === 'messages' && request.system !== undefined ? [request.system, request.messages ?? ''] : (request.messages ?? '');
  const prompt = Math.max(1, Math.ceil(JSON.stringify(asked).length / 4));
  const out = typeof request.max_tokens === 'number' && Number.isInteger(request.max_tokens) && request.max_tokens > 0 ? Math.min(request.max_tokens, model.maxOutput) : 256;
  return { request, model, call: live.record(key, model, prompt, out) };
}

export function completion(live: LiveCalls, key: SandboxKey, body: unknown): Generated {
  const made = generate(live, key, body, 'chat completions');
  if (!('call' in made)) return made;
  const { request, model, call } = made;
  if (request.stream === true) {
    // A streamed answer: chunks of the text, then (with stream_options.include_usage, as the
    // interface asks, or always here) a last chunk holding the usage, then [DONE].
    const chunk = (delta: Record<string, unknown>, finish: string | null, usage?: Record<string, number>) => ({ id: `chatcmpl-${call.id}`, object: 'chat.completion.chunk', created: call.at, model: model.name, choices: usage ? [] : [{ index: 0, delta, finish_reason: finish }], ...(usage ? { usage } : {}) });
    const events = [chunk({ role: 'assistant', content: 'This is ' }, null), chunk({ content: 'the sandbox ' }, null), chunk({ content: 'answering.' }, 'stop'), chunk({}, null, { prompt_tokens: call.promptTokens, completion_tokens: call.completionTokens, total_tokens: call.promptTokens + call.completionTokens })];
    return { status: 200, body: null, stream: [...events.map((e) => `data: ${JSON.stringify(e)}\n\n`), 'data: [DONE]\n\n'], requestId: call.id };
  }
  return {
    status: 200,
    requestId: call.id,
    body: {
      id: `chatcmpl-${call.id}`,
      object: 'chat.completion',
      created: call.at,
      model: model.name,
      choices: [{ index: 0, message: { role: 'assistant', content: 'This is the sandbox answering.' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: call.promptTokens, completion_tokens: call.completionTokens, total_tokens: call.promptTokens + call.completionTokens },
    },
  };
}

/**
 * The answer to POST /v1/messages (the Anthropic interface): the message, or its events
 * (message_start with the input, content blocks, message_delta with the output, message_stop).
 */
export function message(live: LiveCalls, key: SandboxKey, body: unknown): Generated {
  const made = generate(live, key, body, 'messages');
  if (!('call' in made)) {
    const error = (made.body as { error: { type: string; message: string } }).error;
    return { status: made.status, body: { type: 'error', error: { type: error.type, message: error.message } } };
  }
  const { request, model, call } = made;
  const id = `msg_${call.id}`;
  const usage = { input_tokens: call.promptTokens, output_tokens: call.completionTokens };
  const text = 'This is the sandbox answering.';
  if (request.stream === true) {
    const event = (type: string, data: Record<string, unknown>) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
    return {
      status: 200,
      body: null,
      requestId: call.id,
      stream: [
        event('message_start', { message: { id, type: 'message', role: 'assistant', model: model.name, content: [], stop_reason: null, usage: { input_tokens: call.promptTokens, output_tokens: 1 } } }),
        event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
        event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'This is the sandbox ' } }),
        event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'answering.' } }),
        event('content_block_stop', { index: 0 }),
        event('message_delta', { delta: { stop_reason: 'end_turn' }, usage: { output_tokens: call.completionTokens } }),
        event('message_stop', {}),
      ],
    };
  }
  return { status: 200, requestId: call.id, body: { id, type: 'message', role: 'assistant', model: model.name, content: [{ type: 'text', text }], stop_reason: 'end_turn', usage } };
}
