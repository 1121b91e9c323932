// The text paths of tally (masking, escaping, wrapping, widths) and the shapes of text that make a
// careless pattern backtrack: what `BENCH_TEXT=1 npm run bench` times at 64 KiB and 1 MiB (the
// larger must cost about 16 times the smaller; a quadratic path costs 256 times). The suite checks
// the patterns themselves without a clock (test/domain/regex-linearity.test.ts).
import { SecretSet } from '../../src/domain/secrets.js';
import { csvCell } from '../../src/domain/csv.js';
import { escapeControl, escapeMarkdown, escapeWorkflowData, guardTerminalText } from '../../src/output/escape.js';
import { escapeHtml } from '../../src/output/report-html.js';
import { slackEscape } from '../../src/notify/payloads.js';
import { xmlText } from '../../src/output/junit.js';
import { escapeLabel } from '../../src/output/prometheus.js';
import { fitLines, wrapNote } from '../../src/output/wrap.js';
import { displayWidth, prepareWidths } from '../../src/output/width.js';

export { fitLines, prepareWidths };
export const KEY = 'sk-text-paths-0123456789abcdef';
export const SMALL = 64 * 1024;
export const LARGE = 1024 * 1024;
export const SHAPES: Record<string, (n: number) => string> = {
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
export const PATHS: Record<string, (text: string) => unknown> = {
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

