// What the CLI prints for people (stdout) and the errors it exits with.

export class UsageError extends Error {}

export function print(line = ''): void {
  process.stdout.write(`${line}\n`);
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

export function table(rows: Array<Record<string, string | number | null>>): string {
  if (rows.length === 0) return '(none)';
  const columns = Object.keys(rows[0]!);
  const width = (c: string) => Math.max(c.length, ...rows.map((r) => String(r[c] ?? '').length));
  const line = (cells: string[]) => cells.map((cell, i) => cell.padEnd(width(columns[i]!))).join('  ').trimEnd();
  return [line(columns), ...rows.map((r) => line(columns.map((c) => String(r[c] ?? ''))))].join('\n');
}
