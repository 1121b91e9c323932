// --jq EXPR: the document --json would print, through real jq (jq 1.8 compiled to WebAssembly by
// jq-wasm; loaded only when --jq is given). As in gh: strings print raw, other results as compact
// JSON, one per line. jq 1.8 keeps number literals as written, so amounts keep every digit.
// A bad expression, or one that fails on this document, is a usage error with jq's own words
// and nothing on stdout.
//
// jq runs in a worker thread: an expression that never ends (`repeat(.)`, `last(range(1e9))`) or
// grows without bound is stopped by --timeout, Ctrl-C or a memory ceiling, which a computation
// on the main thread would never let run.
import type { Context } from '../context.js';
import { stringifyJson } from '../domain/json.js';
import { UsageError } from '../errors.js';
import { workerModule } from '../external.js';
import { escapeControl } from './escape.js';

/** jq's memory (WebAssembly grows outside V8's heap limits) may add at most this much to the process. */
const MEMORY_CEILING_BYTES = 1024 * 1024 * 1024;
const MEMORY_CHECK_MS = 50;

// CommonJS, evaluated in the worker: load jq (its file, or in the single executable its source, an
// asset of the binary), run it once, post the result (or why it failed).
const WORKER_SOURCE = `
const { workerData, parentPort } = require('node:worker_threads');
const place = workerData.module;
const { loadJq } = place.file ? require(place.file) : (() => {
  const module = { exports: {} };
  new Function('module', 'exports', 'require', require('node:sea').getAsset(place.asset, 'utf8'))(module, module.exports, require);
  return module.exports;
})();
loadJq().then((jq) => {
  try {
    parentPort.postMessage({ ok: true, result: jq.raw(workerData.input, workerData.expression, ['-r', '-c']) });
  } catch (error) {
    parentPort.postMessage({ ok: false, message: String((error && error.message) || error) });
  }
}, (error) => parentPort.postMessage({ ok: false, message: String((error && error.message) || error) }));
`;

/** Printed by jq around the user's results (see applyJq); no result holds it by chance. */
const MARK = '\u001e\u001ftally:end-of-results\u001f\u001e';

interface JqOutcome {
  ok: boolean;
  result?: { stdout: string; stderr: string; exitCode: number };
  message?: string;
}

/** What `--jq` prints for one document (its lines end with a newline). */
export async function applyJq(ctx: Context, document: unknown): Promise<string> {
  const expression = ctx.options.jq!;
  const input = stringifyJson(document);
  // jq-wasm trims what jq printed, so a first or last result of white space alone ("  ") would be
  // lost: a marker printed before and after the results keeps them. A compile error is asked of
  // the expression as written, so that jq's line and column point into what the user typed.
  let outcome = await runJq(ctx, input, `${JSON.stringify(MARK)}, (${expression}), ${JSON.stringify(MARK)}`);
  if (outcome.ok && outcome.result!.exitCode === 3) outcome = await runJq(ctx, input, expression);
  const said = (text: string) => `--jq ${JSON.stringify(expression)}: ${text}`;
  if (!outcome.ok) {
    const aborted = /abort|memory|out of bounds/i.test(outcome.message ?? '');
    throw new UsageError(said(aborted ? 'jq ran out of memory (the expression builds more than it can hold)' : `jq failed: ${outcome.message}`));
  }
  const result = outcome.result!;
  if (result.exitCode !== 0 || result.stderr.trim() !== '') {
    const words = result.stderr.split('\n').map((line) => line.trim()).filter(Boolean).join(' ');
    throw new UsageError(said(words || `jq exited with status ${result.exitCode}`));
  }
  // jq -r prints every result followed by a newline, whitespace-only strings included.
  let marked = result.stdout;
  if (marked.startsWith(`${MARK}\n`)) marked = marked.slice(MARK.length + 1);
  marked = marked.endsWith(MARK) ? marked.slice(0, -MARK.length) : marked === MARK ? '' : marked;
  const out = marked === '' || marked.endsWith('\n') ? marked : `${marked}\n`;
  // Raw strings come straight from the service: on a terminal, they are escaped like any other text.
  return ctx.io.stdoutIsTTY ? out.split('\n').map(escapeControl).join('\n') : out;
}

/** Runs jq in a worker that --timeout, Ctrl-C and the memory ceiling can stop. */
async function runJq(ctx: Context, input: string, expression: string): Promise<JqOutcome> {
  const { Worker } = process.getBuiltinModule('node:worker_threads');
  ctx.checkDeadline();
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { module: workerModule('jq-wasm'), input, expression },
    resourceLimits: { maxOldGenerationSizeMb: 512 },
    // Emscripten writes "Aborted()" on its own: what jq says arrives in the result instead.
    stdout: true,
    stderr: true,
  });
  worker.stdout.resume();
  worker.stderr.resume();
  const startRss = process.memoryUsage.rss();
  let stop: (error: Error) => void = () => undefined;
  const watch = setInterval(() => {
    if (process.memoryUsage.rss() - startRss > MEMORY_CEILING_BYTES) {
      stop(new UsageError(`--jq ${JSON.stringify(expression)}: jq used more than ${MEMORY_CEILING_BYTES / 1024 / 1024 / 1024} GB of memory; stopped`));
    }
  }, MEMORY_CHECK_MS);
  const onAbort = () => stop(ctx.abortError());
  try {
    return await new Promise<JqOutcome>((resolve, reject) => {
      stop = (error) => {
        void worker.terminate();
        reject(error);
      };
      if (ctx.signal.aborted) return onAbort();
      ctx.signal.addEventListener('abort', onAbort, { once: true });
      worker.once('message', (message: JqOutcome) => resolve(message));
      worker.once('error', (error) => resolve({ ok: false, message: error.message }));
      worker.once('exit', () => resolve({ ok: false, message: 'jq stopped without an answer' }));
    });
  } finally {
    clearInterval(watch);
    ctx.signal.removeEventListener('abort', onAbort);
    void worker.terminate();
  }
}
