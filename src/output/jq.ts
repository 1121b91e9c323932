// --jq EXPR: the document --json would print, through real jq (jq 1.8 compiled to WebAssembly by
// jq-wasm; loaded only when --jq is given). As in gh: strings print raw, other results as compact
// JSON, one per line. jq 1.8 keeps number literals as written, so amounts keep every digit.
// A bad expression, or one that fails on this document, is a usage error with jq's own words
// and nothing on stdout.
import type { Context } from '../context.js';
import { stringifyJson } from '../domain/json.js';
import { UsageError } from '../errors.js';
import { importExternal } from '../external.js';
import { escapeControl } from './escape.js';

type JqModule = typeof import('jq-wasm');

let jq: Promise<Awaited<ReturnType<JqModule['loadJq']>>> | undefined;

/** What `--jq` prints for one document (its lines end with a newline). */
export async function applyJq(ctx: Context, document: unknown): Promise<string> {
  const expression = ctx.options.jq!;
  // jq-wasm is CommonJS: its exports arrive as named exports or under `default`.
  jq ??= importExternal<JqModule & { default?: JqModule }>('jq-wasm').then((module) => (module.loadJq ?? module.default!.loadJq)());
  const result = (await jq).raw(stringifyJson(document), expression, ['-r', '-c']);
  if (result.exitCode !== 0 || result.stderr.trim() !== '') {
    const words = result.stderr.split('\n').map((line) => line.trim()).filter(Boolean).join(' ');
    throw new UsageError(`--jq ${JSON.stringify(expression)}: ${words || `jq exited with status ${result.exitCode}`}`);
  }
  const out = result.stdout === '' ? '' : result.stdout.endsWith('\n') ? result.stdout : `${result.stdout}\n`;
  // Raw strings come straight from the service: on a terminal, they are escaped like any other text.
  return ctx.io.stdoutIsTTY ? out.split('\n').map(escapeControl).join('\n') : out;
}
