// Masking, escaping, wrapping and parsing take time linear in their input (CONTRACT: "no text
// from the gateway, however long, holds a command past --timeout"). Each text path is fed words
// of 64 KiB and of 1 MiB in the shapes that make a careless pattern backtrack; the larger must
// cost about 16 times the smaller (a quadratic path costs 256 times), never an absolute time.
// Then, whole: a gateway whose error message is one megabyte-long word, under --timeout 2.
import { describe, expect, it } from 'vitest';
import { SecretSet } from '../../src/domain/secrets.js';
import { csvCell } from '../../src/domain/csv.js';
import { escapeControl, escapeMarkdown, escapeWorkflowData, guardTerminalText } from '../../src/output/escape.js';
import { escapeHtml } from '../../src/output/report-html.js';
import { slackEscape } from '../../src/notify/payloads.js';
import { xmlText } from '../../src/output/junit.js';
import { escapeLabel } from '../../src/output/prometheus.js';
import { fitLines, wrapNote } from '../../src/output/wrap.js';
import { displayWidth, prepareWidths } from '../../src/output/width.js';
import { type HostileGateway, startHostile } from './hostile-gateway.js';
import { KEY, runTally, tempDir } from '../helpers.js';

const SMALL = 64 * 1024;
const LARGE = 1024 * 1024;
const SHAPES: Record<string, (n: number) => string> = {
  'word characters': (n) => 'a'.repeat(n),
  'a word after sk-': (n) => `sk-${'a'.repeat(n - 3)}`,
  'sk- over and over': (n) => 'sk-'.repeat(Math.floor(n / 3)),
  hyphens: (n) => '-'.repeat(n),
  'markup characters': (n) => '<&>*_[]()'.repeat(Math.floor(n / 9)),
  'bidirectional controls': (n) => '\u202e'.repeat(n),
  'wide characters': (n) => '字'.repeat(n),
};

const secrets = new SecretSet();
secrets.add(KEY);
const PATHS: Record<string, (text: string) => unknown> = {
  'masking a message': (t) => secrets.scrubMessage(t),
  'masking data': (t) => secrets.scrub(t),
  'terminal escaping': escapeControl,
  'terminal guard': (t) => guardTerminalText(t),
  Markdown: escapeMarkdown,
  'workflow commands': escapeWorkflowData,
  HTML: escapeHtml,
  Slack: slackEscape,
  XML: xmlText,
  'Prometheus labels': escapeLabel,
  CSV: csvCell,
  'notes on stderr': (t) => wrapNote(t, 80, 2),
  'display width': displayWidth,
};

/** The least of a few runs: what the work costs, with the machine's noise taken out as far as it can be. */
function cost(path: (text: string) => unknown, text: string): number {
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < 5; i++) {
    const started = performance.now();
    path(text);
    best = Math.min(best, performance.now() - started);
  }
  return best;
}

describe('every text path is linear in its input', () => {
  for (const [pathName, path] of Object.entries(PATHS)) {
    it.each(Object.entries(SHAPES))(`${pathName}: %s`, async (_shape, make) => {
      await prepareWidths([make(16)]);
      const small = cost(path, make(SMALL));
      const large = cost(path, make(LARGE));
      // 16 times the input: linear costs ~16 times; quadratic ~256 times (seconds). A floor keeps a busy machine's noise out.
      expect(large).toBeLessThan(64 * Math.max(small, 5));
    });
  }

  it.each(Object.entries(SHAPES))('wrapping a table line to the terminal: %s', async (_shape, make) => {
    await prepareWidths([make(16)]);
    const time = async (text: string) => {
      const started = performance.now();
      await fitLines(text, 80);
      return performance.now() - started;
    };
    await time(make(SMALL));
    const least = async (text: string) => {
      let best = Number.POSITIVE_INFINITY;
      for (let i = 0; i < 5; i++) best = Math.min(best, await time(text));
      return best;
    };
    const small = await least(make(SMALL));
    const large = await least(make(LARGE));
    expect(large).toBeLessThan(64 * Math.max(small, 5));
  });
});

describe('a megabyte-long word from the gateway', () => {
  const gateways: HostileGateway[] = [];
  it.each([
    ['an error message', { status: 400, body: JSON.stringify({ error: { message: `bad ${'x'.repeat(LARGE)}` } }) }],
    ['an error message shaped like a key', { status: 400, body: JSON.stringify({ error: { message: `sk-${'k'.repeat(LARGE)}` } }) }],
  ])('in %s: balance ends with its error under --timeout 2, the word masked and cut', async (_name, answer) => {
    const gateway = await startHostile({ name: 'long word', routes: { '/v1/open/balance': answer } });
    gateways.push(gateway);
    const state = tempDir();
    try {
      const result = await runTally(['balance', '--timeout', '2'], { env: { TALLY_BASE_URL: gateway.baseUrl, TALLY_API_KEY: KEY, TALLY_CONFIG_DIR: state.path }, timeoutMs: 15_000 });
      expect(result.signal).toBeNull();
      expect(result.code).toBe(1);
      expect(result.stderr.length).toBeLessThan(2000);
      expect(result.stderr).not.toContain('k'.repeat(100));
    } finally {
      state.remove();
      await gateway.close();
    }
  });
});
