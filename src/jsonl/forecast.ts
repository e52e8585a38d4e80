// `insights forecast`: the JSONL batch contract (contract.ts) over the
// forecaster. Input line {"id","points":[{"date","value"}],"horizon"?}; output
// line {"id","model","points"}, {"id","withheld":true,"reason"} or a line error.
import type { Readable, Writable } from 'node:stream';
import { dailyPoints, idOf, LineError, runJsonl } from './contract.js';
import { forecast } from '../domain/forecast/forecaster.js';

export const MAX_HORIZON = 28;

export interface ForecastSummary {
  lines: number;
  forecast: number;
  withheld: number;
  errors: number;
}

export async function forecastJsonl(input: Readable, output: Writable, defaultHorizon = 7): Promise<ForecastSummary> {
  const summary = await runJsonl(input, output, (row) => {
    const id = idOf(row);
    const h = row.horizon === undefined ? defaultHorizon : row.horizon;
    if (typeof h !== 'number' || !Number.isInteger(h) || h < 1 || h > MAX_HORIZON)
      throw new LineError(`"horizon" must be a whole number from 1 to ${MAX_HORIZON}`);
    const { dates, values } = dailyPoints(row, 'points');
    const f = forecast(dates, values, h);
    return f.withheld
      ? { outcome: 'withheld', value: { id, withheld: true, reason: f.reason } }
      : { outcome: 'forecast', value: { id, model: f.model, points: f.points } };
  });
  return {
    lines: summary.lines,
    forecast: summary.outcomes.forecast ?? 0,
    withheld: summary.outcomes.withheld ?? 0,
    errors: summary.errors,
  };
}
