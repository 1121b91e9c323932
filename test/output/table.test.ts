import { describe, expect, it } from 'vitest';
import { barMaker, renderPanel, renderTable } from '../../src/output/table.js';
import { displayWidth } from '../../src/output/width.js';

const PLAIN = { bold: (t: string) => t, dim: (t: string) => t, red: (t: string) => t, green: (t: string) => t, yellow: (t: string) => t };
const pipe = { color: false, width: Number.POSITIVE_INFINITY, unicode: false, paint: PLAIN };

describe('renderTable', () => {
  it('aligns wide characters by their terminal width', async () => {
    const text = await renderTable({ columns: [{ header: 'model' }, { header: 'price', align: 'right' }], rows: [['通义千问', '¥1.00'], ['gpt-5', '¥12.50']] }, pipe);
    expect(text).toBe(['model      price', '--------  ------', '通义千问   ¥1.00', 'gpt-5     ¥12.50', ''].join('\n'));
    expect(displayWidth('通义千问')).toBe(8);
  });

  it('escapes control characters in cells and headers, but not in cells tally drew', async () => {
    const bar = barMaker(4, { unicode: false, paint: { ...PLAIN, green: (t) => `\u001b[32m${t}\u001b[39m` } })(0.5);
    const text = await renderTable({ columns: [{ header: 'name\u001b[2J' }, { header: 'bar', trusted: true }], rows: [['a\u0007b', bar]] }, pipe);
    expect(text).toBe(['name\\e[2J  bar', '---------  ----', `a\\u0007b   ${bar}`, ''].join('\n'));
  });

  it('escapes a NUL inside a cell even though NUL joins the column for the quick look', async () => {
    const text = await renderTable({ columns: [{ header: 'id' }], rows: [['a'], ['b\u0000c'], ['d']] }, pipe);
    expect(text).toBe('id\n--------\na\nb\\u0000c\nd\n');
  });

  it('leaves no blanks after the last non-empty cell of a line, whatever the alignment', async () => {
    const spec = {
      columns: [{ header: 'name' }, { header: 'n', align: 'right' as const }, { header: 'note' }],
      rows: [['a', '1', ''], ['bbbb', '', ''], ['c', '22', 'x'], ['d']],
    };
    expect(await renderTable(spec, pipe)).toBe(['name   n  note', '----  --  ----', 'a      1', 'bbbb', 'c     22  x', 'd', ''].join('\n'));
  });

  it('measures tally\'s coloured cells without their colour codes, and the widest cell of each column', async () => {
    const green = (t: string) => `\u001b[32m${t}\u001b[39m`;
    const spec = { columns: [{ header: 'k' }, { header: 'bar', trusted: true }], rows: [['long-name', green('##')], ['x', green('####')]], footer: ['total', ''] };
    expect(await renderTable(spec, pipe)).toBe(['k          bar', '---------  ----', `long-name  ${green('##')}`, `x          ${green('####')}`, '---------  ----', 'total', ''].join('\n'));
  });

  it('drops the optional columns with the highest drop order first when too wide', async () => {
    const spec = { columns: [{ header: 'a' }, { header: 'b', dropOrder: 1 }, { header: 'c', dropOrder: 2 }], rows: [['xxxx', 'yyyy', 'zzzz']] };
    expect(await renderTable(spec, { ...pipe, width: 11 })).toBe('a     b\n----  ----\nxxxx  yyyy\n');
    expect(await renderTable(spec, { ...pipe, width: 5 })).toBe('a\n----\nxxxx\n');
  });
});

describe('renderPanel and bars', () => {
  it('aligns labels and escapes values unless marked as drawn by tally', async () => {
    expect(await renderPanel([['Key', 'evil\u001b]0;x\u0007'], ['Used', '#..', true]], pipe)).toBe('Key   evil\\e]0;x\\u0007\nUsed  #..\n');
  });

  it('draws width + 1 distinct bars and clamps shares outside 0..1', () => {
    const draw = barMaker(4, { unicode: true, paint: PLAIN });
    expect([0, 0.25, 0.5, 1, 2, -1, Number.NaN].map(draw)).toEqual(['░░░░', '█░░░', '██░░', '████', '████', '░░░░', '░░░░']);
  });
});
