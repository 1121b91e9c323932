// Text from the gateway goes into Markdown as data, by the one rule every Markdown writer uses
// (escapeMarkdown): a model name holding a link, an image or HTML renders as the same text.
import { describe, expect, it } from 'vitest';
import { auditMarkdown } from '../../src/output/audit.js';
import { Decimal } from '../../src/domain/money.js';
import { DEFAULT_TOLERANCE } from '../../src/domain/audit.js';

const hostile = ['[click](javascript:alert(1))', '<img src=x onerror=alert(1)>', '![x](https://evil.example/p.png)', '@everyone'];

describe('Markdown from the gateway', () => {
  it("audit --markdown writes a model's name as text, never as a link, an image, HTML or a mention", () => {
    const rows = hostile.map((model) => ({ day: 0, model, charged: new Decimal('0.1'), expected: { basis: 'tokens' as const, amount: new Decimal('0.1') }, verdict: 'match' as const }));
    const markdown = auditMarkdown({ window: { start: 0, end: 86_400 }, offset: 0, scope: 'key', pricingVersion: 'v1', tolerance: DEFAULT_TOLERANCE, rows, calls: { read: 0, complete: true, priced: 0, findings: [] }, unexplained: 0 } as never);
    expect(markdown).not.toMatch(/\]\(javascript:/);
    expect(markdown).not.toMatch(/<img/);
    expect(markdown).not.toMatch(/!\[x\]\(/);
    expect(markdown).not.toMatch(/(^|[^;])@everyone/);
    expect(markdown).toContain('\\[click\\]\\(javascript:alert\\(1\\)\\)');
    expect(markdown).toContain('&lt;img src=x onerror=alert\\(1\\)&gt;');
  });
});
