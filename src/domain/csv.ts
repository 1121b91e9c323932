// CSV as tally writes it (RFC 4180) and the one rule that makes it safe to open: a text cell that
// a spreadsheet would read as a formula (it begins with =, +, -, @, a TAB or a CR) is written with
// a leading apostrophe, as OWASP advises. A plain decimal number (an amount, `-1.5`) is a number
// and stays exactly as it is; JSON and NDJSON keep every text as sent.

const FORMULA_START = /^[=+\-@\t\r]/;
const PLAIN_NUMBER = /^-?\d+(?:\.\d+)?$/;
const NEEDS_QUOTES = /[",\r\n]/;

/** The cell as a spreadsheet may open it: formula text neutralised, numbers untouched. */
export function neutraliseFormula(cell: string): string {
  return FORMULA_START.test(cell) && !PLAIN_NUMBER.test(cell) ? `'${cell}` : cell;
}

/** One cell: neutralised, then quoted where it holds a comma, a quote or a line break. */
export function csvCell(cell: string): string {
  const safe = neutraliseFormula(cell);
  return NEEDS_QUOTES.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** One CSV line (without its line break). */
export function csvLine(cells: readonly string[], cell: (text: string) => string = csvCell): string {
  return cells.map(cell).join(',');
}
