import { describe, expect, it } from 'vitest';
import { renderChart } from '../../src/output/chart.js';

const chart = (values: string[], height = 5) => renderChart({ values, labels: values.map((_, i) => `b${i}`), kind: 'account', width: 60, height, colour: false, unit: 'day' });

describe('renderChart', () => {
  it('labels every row by the value drawn on it, refunds (negative amounts) included', async () => {
    const { text } = await chart(['2', '-3', '1', '0', '-1']);
    const rows = text.trimEnd().split('\n').slice(0, -1);
    expect(rows.map((r) => r.split(/[┼┤]/)[0]!.trim())).toEqual(['¥2.00', '¥1.00', '¥0.00', '-¥1.00', '-¥2.00', '-¥3.00']);
    // The refund of 3 is drawn on the lowest row, the ¥2.00 bucket on the top one.
    expect(rows[5]).toMatch(/-¥3\.00 ┤╰╯/);
    expect(rows[0]).toMatch(/¥2\.00 ┼╮/);
  });

  it('keeps zero at the bottom when nothing was spent', async () => {
    const { text } = await chart(['0', '0', '0'], 2);
    expect(text.split('\n').map((r) => r.split(/[┼┤]/)[0]!.trim()).slice(0, 3)).toEqual(['¥1.00', '¥0.50', '¥0.00']);
  });
});
