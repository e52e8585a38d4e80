// `insights score-series`: the JSONL batch contract (contract.ts) over momentum
// and the trend class. Input line {"id","points":[{"date","value"}],"points_90d"?}:
// `points` is the daily series up to the day to score; `points_90d`, when
// given, is the 90 days ending that same day (else `points` serves as it when
// it has 80 days or more). Output line {"id","momentum","trend_class","model"},
// with "reason" when the series cannot be scored, or a line error.
import type { Readable, Writable } from 'node:stream';
import { assessMomentum } from '../domain/scoring/momentum.js';
import { dailyPoints, idOf, LineError, runJsonl } from './contract.js';

export interface ScoreSeriesSummary {
  lines: number;
  scored: number;
  unscored: number;
  errors: number;
}

const asSeries = ({ dates, values }: { dates: string[]; values: number[] }) => dates.map((date, i) => ({ date, value: values[i]! }));

export async function scoreSeriesJsonl(input: Readable, output: Writable): Promise<ScoreSeriesSummary> {
  const summary = await runJsonl(input, output, (row) => {
    const id = idOf(row);
    const days = asSeries(dailyPoints(row, 'points'));
    let days90 = days.slice(-90);
    if (row.points_90d !== undefined) {
      days90 = asSeries(dailyPoints(row, 'points_90d'));
      if (days90.at(-1)!.date !== days.at(-1)!.date) {
        throw new LineError(`"points_90d" must end on the same day as "points" (${days.at(-1)!.date}), not ${days90.at(-1)!.date}`);
      }
    }
    const { momentum, trend } = assessMomentum({ days30: days.slice(-30), days90 });
    if (momentum.score === null) {
      return { outcome: 'unscored', value: { id, momentum: null, trend_class: null, reason: momentum.explanation } };
    }
    return {
      outcome: 'scored',
      value: { id, momentum: momentum.score, trend_class: trend?.trendClass ?? null, model: momentum.evidence.model },
    };
  });
  return { lines: summary.lines, scored: summary.outcomes.scored ?? 0, unscored: summary.outcomes.unscored ?? 0, errors: summary.errors };
}
