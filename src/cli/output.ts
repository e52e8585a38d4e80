// What the CLI prints for people (stdout) and the errors it exits with.
// Everything printed passes through here, and stored text may come from
// outside (ideas, discovered trends, Google's answers): control characters
// are shown as visible escapes, never sent to the operator's terminal.
import { escapeForTerminal } from '../domain/text.js';

export class UsageError extends Error {}

/** Text for a terminal: control characters (and carriage returns, which can hide a line) made visible. */
export function forTerminal(text: string): string {
  return escapeForTerminal(text).replace(/\r/g, '\\r');
}

export function print(line = ''): void {
  process.stdout.write(`${forTerminal(line)}\n`);
}

/** JSON escapes C0 controls itself; C1 controls and bidi overrides it leaves raw, so escape those too. */
export function printJson(value: unknown): void {
  const json = JSON.stringify(value).replace(
    /[\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  process.stdout.write(`${json}\n`);
}

export function table(rows: Array<Record<string, string | number | null>>): string {
  if (rows.length === 0) return '(none)';
  const columns = Object.keys(rows[0]!);
  rows = rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'string' ? forTerminal(v) : v])));
  const width = (c: string) => Math.max(c.length, ...rows.map((r) => String(r[c] ?? '').length));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => cell.padEnd(width(columns[i]!)))
      .join('  ')
      .trimEnd();
  return [line(columns), ...rows.map((r) => line(columns.map((c) => String(r[c] ?? ''))))].join('\n');
}
