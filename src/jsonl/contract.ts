// The JSONL batch contract that `insights forecast` and `insights score-series`
// share: one JSON object per line in, one per line out, in the same order, in
// constant memory (a line at a time, honouring the output's backpressure). A
// line that cannot be read becomes {"line": N, "error": "..."} and the rest
// goes on; the caller turns any error into exit code 1.
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';

const MAX_POINTS = 5_000;
const DAY = 86_400_000;

/** What the handler of one line answers: a result to write, counted under `outcome`. */
export interface LineResult {
  outcome: string;
  value: unknown;
}

export interface JsonlSummary {
  lines: number;
  errors: number;
  /** Lines per outcome the handler named. */
  outcomes: Record<string, number>;
}

export class LineError extends Error {}

/** Runs `handle` on each line's object; a LineError (or bad JSON) becomes that line's error. */
export async function runJsonl(
  input: Readable,
  output: Writable,
  handle: (row: Record<string, unknown>) => LineResult,
): Promise<JsonlSummary> {
  const summary: JsonlSummary = { lines: 0, errors: 0, outcomes: {} };
  const lines = createInterface({ input, crlfDelay: Infinity });
  const write = async (value: unknown) => {
    if (!output.write(`${JSON.stringify(value)}\n`)) await once(output, 'drain');
  };
  for await (const text of lines) {
    summary.lines += 1;
    let result: LineResult;
    try {
      if (text.trim() === '') throw new LineError('empty line');
      let row: unknown;
      try {
        row = JSON.parse(text);
      } catch {
        throw new LineError('not valid JSON');
      }
      if (typeof row !== 'object' || row === null || Array.isArray(row)) throw new LineError('expected a JSON object');
      result = handle(row as Record<string, unknown>);
    } catch (error) {
      if (!(error instanceof LineError)) throw error;
      summary.errors += 1;
      await write({ line: summary.lines, error: error.message });
      continue;
    }
    summary.outcomes[result.outcome] = (summary.outcomes[result.outcome] ?? 0) + 1;
    await write(result.value);
  }
  return summary;
}

/** The line's "id": a non-empty string of at most 200 characters. */
export function idOf(row: Record<string, unknown>): string {
  const { id } = row;
  if (typeof id !== 'string' || id === '' || id.length > 200) throw new LineError('"id" must be a non-empty string (≤ 200 characters)');
  return id;
}

/** A daily series field: [{"date": "YYYY-MM-DD", "value": 0–100}], ascending by one day, no gaps. */
export function dailyPoints(row: Record<string, unknown>, field: string): { dates: string[]; values: number[] } {
  const points = row[field];
  if (!Array.isArray(points) || points.length === 0) throw new LineError(`"${field}" must be a non-empty array of {"date", "value"}`);
  if (points.length > MAX_POINTS) throw new LineError(`"${field}" has ${points.length} entries; at most ${MAX_POINTS}`);
  const dates: string[] = [];
  const values: number[] = [];
  for (let i = 0; i < points.length; i += 1) {
    const p = points[i] as { date?: unknown; value?: unknown } | null;
    if (typeof p !== 'object' || p === null) throw new LineError(`${field}[${i}] is not an object`);
    if (typeof p.date !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(p.date) || Number.isNaN(Date.parse(`${p.date}T00:00:00Z`))) {
      throw new LineError(`${field}[${i}].date must be a date "YYYY-MM-DD"`);
    }
    if (typeof p.value !== 'number' || !Number.isFinite(p.value) || p.value < 0 || p.value > 100) {
      throw new LineError(`${field}[${i}].value must be a number from 0 to 100`);
    }
    if (i > 0 && Date.parse(`${p.date}T00:00:00Z`) - Date.parse(`${dates[i - 1]}T00:00:00Z`) !== DAY) {
      throw new LineError(`${field}[${i}].date ${p.date} does not follow ${dates[i - 1]} by one day (daily, ascending, no gaps)`);
    }
    dates.push(p.date);
    values.push(p.value);
  }
  return { dates, values };
}
