/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// The HTML report as a person sees it: a real headless Chromium (Debian's package) opens the file
// at 1280 and 390 pixels wide, in light and dark, for the screen and for print. The page loads
// with no console error and no request beyond itself, draws its charts (a bar per day, a bar per
// model), and every figure on it is the --json figure.
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { chromium } from 'playwright-core';
import { escapeHtml } from '../../src/output/report-html.js';
import { runTally } from '../helpers.js';
import { sandboxForFile } from '../support/sandbox-fixture.js';

const NOW = Date.UTC(2026, 10, 20, 9, 30);
const world = sandboxForFile(NOW, { accountLimit: 5000 });
const browser = process.env.TALLY_CHROMIUM ?? ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));
// CI installs the browser (.ci/run): there, a missing one fails; elsewhere the test says why it is skipped.
const run = browser || process.env.CI === 'true' ? describe : describe.skip;
if (!browser && process.env.CI !== 'true') console.warn('report-html: no chromium found (apt-get install chromium, or TALLY_CHROMIUM=path): skipped');

run('the HTML report in a real Chromium', () => {
  it.each([[['--period', 'week']], [['--since', '2026-11-10', '--until', '2026-11-20']]])('%j: loads clean, draws its charts, and shows the --json figures, wide and narrow, light and dark', async (period) => {
    const file = `${world.state.path}/report-${period.length}.html`;
    const written = await runTally(['report', ...period, '--html', file], { env: world.env, now: NOW });
    expect(written.code, written.stderr).toBe(0);
    const doc = JSON.parse((await runTally(['report', ...period, '--json'], { env: world.env, now: NOW })).stdout);
    const html = readFileSync(file, 'utf8');
    expect(html).not.toMatch(/<script|https?:\/\/(?!json-schema)/i);
    // The footer says what the page shows: amounts rounded to the fen, where --json has every digit the gateway states.
    expect(html).toMatch(/rounded to the fen; the gateway states them to more places \(tally report --json has every digit\)/);
    expect(html).not.toMatch(/exact to the fen/);
    const instance = await chromium.launch({ executablePath: browser, args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'] });
    try {
      for (const width of [1280, 390]) {
        for (const colorScheme of ['light', 'dark'] as const) {
          const page = await instance.newPage({ viewport: { width, height: 900 }, colorScheme });
          const problems: string[] = [];
          const requests: string[] = [];
          page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
          page.on('pageerror', (e) => problems.push(e.message));
          page.on('request', (r) => requests.push(r.url()));
          await page.goto(`file://${file}`);
          await page.screenshot({ path: `${world.state.path}/report-${width}-${colorScheme}.png`, fullPage: true });
          expect(problems).toEqual([]);
          expect(requests).toEqual([`file://${file}`]);
          const seen = await page.evaluate(() => ({
            days: [...document.querySelectorAll('svg.daily rect.bar')].map((r) => [r.getAttribute('data-date'), r.getAttribute('data-value'), Number(r.getAttribute('height'))]),
            models: [...document.querySelectorAll('svg.models rect.bar')].map((r) => [r.getAttribute('data-model'), r.getAttribute('data-value')]),
            figures: Object.fromEntries([...document.querySelectorAll('[data-figure]')].map((e) => [e.getAttribute('data-figure'), [e.getAttribute('data-value'), e.textContent]])),
            overflow: document.documentElement.scrollWidth - window.innerWidth,
            background: getComputedStyle(document.body).backgroundColor,
          }));
          expect(seen.days.map(([date, value]) => [date, value])).toEqual(doc.daily.map((d: { date: string; amount: string }) => [d.date, d.amount]));
          // Drawn to scale: the largest day is the tallest bar, a day without spend has none.
          const tallest = Math.max(...seen.days.map((d) => d[2] as number));
          doc.daily.forEach((d: { amount: string }, i: number) => {
            if (Number(d.amount) === 0) expect(seen.days[i]![2]).toBe(0);
            else expect(seen.days[i]![2]).toBeGreaterThan(0);
          });
          expect(tallest).toBeGreaterThan(0);
          const spent = doc.models.filter((m: { current: string }) => m.current !== '0');
          expect(seen.models.map(([m]) => m).sort()).toEqual(spent.map((m: { model: string }) => m.model).sort());
          for (const [model, value] of seen.models) expect(value).toBe(doc.models.find((m: { model: string }) => m.model === model).current);
          expect(seen.figures.spend![0]).toBe(doc.spend.current);
          expect(seen.figures.previous![0]).toBe(doc.spend.previous);
          expect(seen.figures.balance![0]).toBe(doc.now.balance.replace(/(\.\d*?)0+$/, '$1').replace(/\.$/, ''));
          expect(seen.figures['models-total']![0]).toBe(doc.models_total.current);
          expect(seen.figures.spend![1]).toMatch(/^¥[\d,]+\.\d{2}$/);
          expect(seen.overflow).toBeLessThanOrEqual(0);
          // Readable without a mouse, on a phone too: every amount of a chart is page text (a day
          // table under the day chart, an amount beside each model's bar) of at least 12 CSS px;
          // no text inside a drawing (it would shrink with it); labels inside the chart; card
          // values and dates on one line.
          const look = await page.evaluate(() => {
            const px = (el: Element) => Number.parseFloat(getComputedStyle(el).fontSize);
            const lines = (el: Element) => {
              const range = document.createRange();
              range.selectNodeContents(el);
              return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
            };
            const page = document.documentElement.getBoundingClientRect();
            const chartText = [...document.querySelectorAll('.scale, .ends span, .mname, .mval, table.days td')];
            return {
              svgText: document.querySelectorAll('svg text').length,
              smallest: Math.min(...chartText.map(px)),
              dayRows: document.querySelectorAll('table.days tbody tr').length,
              modelAmounts: [...document.querySelectorAll('.mval')].map((e) => e.textContent),
              outside: chartText.filter((el) => { const b = el.getBoundingClientRect(); return b.left < page.left - 0.5 || b.right > page.right + 0.5; }).length,
              wrappedValues: [...document.querySelectorAll('.card .value')].filter((el) => lines(el) > 1).map((el) => el.textContent),
              brokenDates: [...document.querySelectorAll('.nw')].filter((el) => lines(el) > 1).map((el) => el.textContent),
            };
          });
          expect(look.svgText).toBe(0);
          expect(look.smallest).toBeGreaterThanOrEqual(12);
          expect(look.dayRows).toBe(doc.daily.length);
          expect(look.modelAmounts).toHaveLength(spent.length);
          expect(look.outside).toBe(0);
          expect(look.wrappedValues).toEqual([]);
          expect(look.brokenDates).toEqual([]);
          expect(seen.background).toBe(colorScheme === 'dark' ? 'rgb(13, 17, 23)' : 'rgb(255, 255, 255)');
          await page.emulateMedia({ media: 'print' });
          expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe('rgb(255, 255, 255)');
          await page.close();
        }
      }
    } finally {
      await instance.close();
    }
  }, 60_000);
});

describe('escapeHtml', () => {
  it('makes text from the gateway inert in the page', () => {
    expect(escapeHtml(`<img src=x onerror="alert('1')">&\u001b[2J`)).toBe('&lt;img src=x onerror=&quot;alert(&#39;1&#39;)&quot;&gt;&amp; [2J');
  });
});
