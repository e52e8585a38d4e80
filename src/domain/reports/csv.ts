// CSV as RFC 4180 writes it (CRLF between records, a field holding a comma, a
// quote, CR or LF quoted, quotes doubled), made safe to open in a spreadsheet:
// a text cell that begins with = + - @, a tab or a carriage return is read by
// Excel, LibreOffice and Google Sheets as a formula ("=HYPERLINK(...)",
// "@SUM(...)", "-2+3"), so such a cell gets a leading ' (OWASP, "CSV
// Injection"), which spreadsheets show as text. Numbers are written as they
// are: a negative number is data, not a formula.

export type CsvCell = string | number | boolean | null | undefined;

/** What a spreadsheet reads as the start of a formula. */
const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

/** One field: empty for null, a number as JavaScript writes it, text defused and quoted when it must be. */
export function csvField(value: CsvCell): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  const text = FORMULA_START.test(value) ? `'${value}` : value;
  return NEEDS_QUOTES.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** A header record and the rows under it, each record ended by CRLF. */
export function toCsv(header: readonly string[], rows: ReadonlyArray<readonly CsvCell[]>): string {
  return [header, ...rows].map((record) => `${record.map(csvField).join(',')}\r\n`).join('');
}
