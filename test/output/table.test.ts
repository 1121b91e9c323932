import { describe, expect, it } from 'vitest';
import { barMaker, drawn, renderPanel, renderTable } from '../../src/output/table.js';
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
    const text = await renderTable({ columns: [{ header: 'name\u001b[2J' }, { header: 'bar', drawn: true }], rows: [['a\u0007b', bar]] }, pipe);
    expect(text).toBe(['name\\e[2J  bar', '---------  ----', `a\\u0007b   ${bar}`, ''].join('\n'));
  });

  it('escapes a NUL inside a cell even though NUL joins the column for the quick look', async () => {
    const text = await renderTable({ columns: [{ header: 'id' }], rows: [['a'], ['b\u0000c'], ['d']] }, pipe);
    expect(text).toBe('id\n--------\na\nb\\u0000c\nd\n');
  });

  it('pads any width of column, wider than 512 columns too (--wide never shortens)', async () => {
    const long = 'x'.repeat(700);
    const text = await renderTable({ columns: [{ header: 'name' }, { header: 'n', align: 'right' }, { header: 'note' }], rows: [[long, '1', 'a'], ['b', '22', 'c']] }, pipe);
    const [, , first, second] = text.split('\n');
    expect(first).toBe(`${long}   1  a`);
    expect(second).toBe(`b${' '.repeat(699)}  22  c`);
    expect(second!.indexOf('c')).toBe(first!.indexOf('a'));
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
    const spec = { columns: [{ header: 'k' }, { header: 'bar', drawn: true }], rows: [['long-name', green('##')], ['x', green('####')]], footer: ['total', ''] };
    expect(await renderTable(spec, pipe)).toBe(['k          bar', '---------  ----', `long-name  ${green('##')}`, `x          ${green('####')}`, '---------  ----', 'total', ''].join('\n'));
  });

  it('drops the optional columns with the highest drop order first when too wide, and says what it hid', async () => {
    const spec = { columns: [{ header: 'a' }, { header: 'b', dropOrder: 1 }, { header: 'c', dropOrder: 2 }], rows: [['xxxx', 'yyyy', 'zzzz']] };
    expect(await renderTable(spec, { ...pipe, width: 60 })).toBe('a     b     c\n----  ----  ----\nxxxx  yyyy  zzzz\n');
    expect(await renderTable(spec, { ...pipe, width: 11 })).toBe(
      'a     b\n----  ----\nxxxx  yyyy\ncolumn\nhidden to\nfit 11\ncolumns: c\n(--wide\nshows every\ncolumn;\n--csv or\n--json\nevery\nfield)\n',
    );
    expect((await renderTable(spec, { ...pipe, width: 5 })).split('\n').slice(0, 4)).toEqual(['a', '----', 'xxxx', 'columns']);
    expect(await renderTable(spec, { ...pipe, width: 5, wide: true })).toBe('a     b     c\n----  ----  ----\nxxxx  yyyy  zzzz\n');
  });

  it('shortens the widest text column with … when dropping is not enough; never an amount, never with --wide', async () => {
    const spec = { columns: [{ header: 'model' }, { header: 'price', align: 'decimal' as const }], rows: [['a-very-long-model-name-indeed', '¥1.50']] };
    expect(await renderTable(spec, { ...pipe, width: 20 })).toBe('model          price\n-------------  -----\na-very-long-…  ¥1.50\n');
    expect(await renderTable(spec, { ...pipe, width: 20, wide: true })).toBe('model                          price\n-----------------------------  -----\na-very-long-model-name-indeed  ¥1.50\n');
  });

  it('lines up decimal points in amount columns, also when cells have different decimals (--exact)', async () => {
    const spec = { columns: [{ header: 'k' }, { header: 'cost (¥)', align: 'decimal' as const }], rows: [['a', '¥1.5'], ['b', '¥12.12345678'], ['c', '—'], ['d', '¥300']], footer: ['total', '¥313.62345678'] };
    expect(await renderTable(spec, pipe)).toBe(
      ['k           cost (¥)', '-----  -------------', 'a        ¥1.5', 'b       ¥12.12345678', 'c                  —', 'd      ¥300', '-----  -------------', 'total  ¥313.62345678', ''].join('\n'),
    );
  });
});

describe('renderPanel and bars', () => {
  it('aligns labels and escapes values unless marked as drawn by tally', async () => {
    expect(await renderPanel([['Key', 'evil\u001b]0;x\u0007'], ['Used', drawn('\u001b[32m#\u001b[39m..')]], pipe)).toBe('Key   evil\\e]0;x\\u0007\nUsed  \u001b[32m#\u001b[39m..\n');
  });

  it('draws width + 1 distinct bars and clamps shares outside 0..1', () => {
    const draw = barMaker(4, { unicode: true, paint: PLAIN });
    expect([0, 0.25, 0.5, 1, 2, -1, Number.NaN].map(draw)).toEqual(['░░░░', '█░░░', '██░░', '████', '████', '░░░░', '░░░░']);
  });
});
