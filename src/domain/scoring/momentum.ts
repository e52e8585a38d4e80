import { mean } from 'simple-statistics';
import { clamp01, round3, unsupported, type DimensionScore } from './dimensions.js';
import { completePoints, relativeSlopePerDay, type SeriesPoint } from './series.js';

const MIN_POINTS = 14;
/** A 30-day relative change of ±SCALE maps to a score of about 0.88 / 0.12. */
const SCALE = 0.25;

export interface ForecastDirection {
  /** Mean forecast over the horizon relative to the last week's mean (0.1 = +10 %). */
  relativeChange: number;
}

/**
 * "Why now": how fast interest grew across the window, from the least-squares
 * trend (robust to a single spike, unlike first-vs-last). When a forecast is
 * available, its direction counts for a third.
 */
export function scoreMomentum(series: readonly SeriesPoint[], forecast?: ForecastDirection): DimensionScore {
  const points = completePoints(series);
  if (points.length < MIN_POINTS) {
    return unsupported(`needs at least ${MIN_POINTS} complete daily points, got ${points.length}`, {
      points: points.length,
    });
  }
  const values = points.map((p) => p.value);
  if (values.every((v) => v === 0)) {
    return unsupported('the series is all zeros: Google has too little data for this phrase', {
      points: points.length,
    });
  }
  const slope = relativeSlopePerDay(values);
  const change = slope * (points.length - 1);
  const week = Math.min(7, Math.floor(points.length / 2));
  const firstWeek = mean(values.slice(0, week));
  const lastWeek = mean(values.slice(-week));
  const trendSignal = Math.tanh(change / (2 * SCALE)) / 2 + 0.5;
  const score =
    forecast === undefined
      ? trendSignal
      : (2 / 3) * trendSignal + (1 / 3) * (Math.tanh(forecast.relativeChange / (2 * SCALE)) / 2 + 0.5);
  const pct = Math.round(change * 100);
  return {
    score: round3(clamp01(score)),
    evidence: {
      points: points.length,
      relative_slope_per_day: round3(slope),
      trend_change_over_window: round3(change),
      first_week_mean: round3(firstWeek),
      last_week_mean: round3(lastWeek),
      forecast_relative_change: forecast ? round3(forecast.relativeChange) : null,
    },
    explanation: `Interest ${pct >= 0 ? 'grew' : 'fell'} about ${Math.abs(pct)}% over ${points.length} days on the least-squares trend${
      forecast ? `, and the forecast points ${forecast.relativeChange >= 0 ? 'up' : 'down'}` : ''
    }.`,
  };
}
