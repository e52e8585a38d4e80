// Every benchmark prints a human table and ends with exactly one JSON line.

export function printTable(title: string, rows: Array<Record<string, string | number>>): void {
  const columns = Object.keys(rows[0] ?? {});
  const width = (c: string) => Math.max(c.length, ...rows.map((r) => String(r[c]).length));
  const line = (cells: string[]) => cells.map((cell, i) => cell.padStart(width(columns[i]!))).join('  ');
  process.stdout.write(`\n${title}\n${line(columns)}\n${rows.map((r) => line(columns.map((c) => String(r[c])))).join('\n')}\n`);
}

export function printJsonLine(result: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

export const round = (x: number, digits = 2) => Math.round(x * 10 ** digits) / 10 ** digits;

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
