// `insights forecast`: JSONL in, JSONL out, in the same order, in constant
// memory (one line at a time, honouring the output's backpressure). A bad line
// becomes {"line": N, "error": "..."} and the rest goes on.
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { forecast } from '../domain/forecast/forecaster.js';

export const MAX_HORIZON = 28;
const MAX_POINTS = 5_000;
const DAY = 86_400_000;

export interface BatchSummary {
  lines: number;
  forecast: number;
  withheld: number;
  errors: number;
}

type Parsed = { id: string; dates: string[]; values: number[]; horizon: number } | { error: string };

function parseLine(text: string, defaultHorizon: number): Parsed {
  let row: unknown;
  try {
    row = JSON.parse(text);
  } catch {
    return { error: 'not valid JSON' };
  }
  if (typeof row !== 'object' || row === null || Array.isArray(row)) return { error: 'expected an object {"id", "points", "horizon"?}' };
  const { id, points, horizon } = row as Record<string, unknown>;
  if (typeof id !== 'string' || id === '' || id.length > 200) return { error: '"id" must be a non-empty string (≤ 200 characters)' };
  const h = horizon === undefined ? defaultHorizon : horizon;
  if (typeof h !== 'number' || !Number.isInteger(h) || h < 1 || h > MAX_HORIZON) return { error: `"horizon" must be a whole number from 1 to ${MAX_HORIZON}` };
  if (!Array.isArray(points) || points.length === 0) return { error: '"points" must be a non-empty array of {"date", "value"}' };
  if (points.length > MAX_POINTS) return { error: `"points" has ${points.length} entries; at most ${MAX_POINTS}` };
  const dates: string[] = [];
  const values: number[] = [];
  for (let i = 0; i < points.length; i += 1) {
    const p = points[i] as { date?: unknown; value?: unknown } | null;
    if (typeof p !== 'object' || p === null) return { error: `points[${i}] is not an object` };
    if (typeof p.date !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(p.date) || Number.isNaN(Date.parse(`${p.date}T00:00:00Z`))) {
      return { error: `points[${i}].date must be a date "YYYY-MM-DD"` };
    }
    if (typeof p.value !== 'number' || !Number.isFinite(p.value) || p.value < 0 || p.value > 100) {
      return { error: `points[${i}].value must be a number from 0 to 100` };
    }
    if (i > 0 && Date.parse(`${p.date}T00:00:00Z`) - Date.parse(`${dates[i - 1]}T00:00:00Z`) !== DAY) {
      return { error: `points[${i}].date ${p.date} does not follow ${dates[i - 1]} by one day (daily, ascending, no gaps)` };
    }
    dates.push(p.date);
    values.push(p.value);
  }
  return { id, dates, values, horizon: h };
}

export async function forecastJsonl(input: Readable, output: Writable, defaultHorizon = 7): Promise<BatchSummary> {
  const summary: BatchSummary = { lines: 0, forecast: 0, withheld: 0, errors: 0 };
  const lines = createInterface({ input, crlfDelay: Infinity });
  const write = async (value: unknown) => {
    if (!output.write(`${JSON.stringify(value)}\n`)) await once(output, 'drain');
  };
  for await (const text of lines) {
    summary.lines += 1;
    if (text.trim() === '') {
      summary.errors += 1;
      await write({ line: summary.lines, error: 'empty line' });
      continue;
    }
    const parsed = parseLine(text, defaultHorizon);
    if ('error' in parsed) {
      summary.errors += 1;
      await write({ line: summary.lines, error: parsed.error });
      continue;
    }
    const f = forecast(parsed.dates, parsed.values, parsed.horizon);
    if (f.withheld) {
      summary.withheld += 1;
      await write({ id: parsed.id, withheld: true, reason: f.reason });
    } else {
      summary.forecast += 1;
      await write({ id: parsed.id, model: f.model, points: f.points });
    }
  }
  return summary;
}
