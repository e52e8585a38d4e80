// What a fresh 90-day answer makes of one insight, computed before anything is
// written: its 30-day series, the forecast, momentum and the overall score.
import { UnrecoverableError } from 'bullmq';
import { forecast as fitForecast, type Forecast } from '../domain/forecast/forecaster.js';
import { cleanSeries } from '../domain/research/series-analysis.js';
import type { DimensionScores } from '../domain/scoring/dimensions.js';
import { assessMomentum } from '../domain/scoring/momentum.js';
import { provenanceKind } from '../domain/provenance.js';
import { combineScores, SOURCE_CERTAINTY } from '../domain/scoring/overall.js';
import { seriesQuality, type SeriesPoint } from '../domain/scoring/series.js';
import type { InsightRow } from '../insights/insight.repository.js';
import { forecastMase } from '../observability/metrics.js';
import { lastDaysRescaled } from '../research/trends-plan.js';
import type { InterestOverTime } from '../domain/trends/answers.js';

/** One keyword's column of an answer, as that keyword's own answer. */
export function columnOf(answer: InterestOverTime, index: number): InterestOverTime {
  return {
    kind: 'interestOverTime',
    keywords: [answer.keywords[index] ?? ''],
    points: answer.points.map((p) => ({
      date: p.date,
      values: [p.values[index] ?? 0],
      hasData: [p.hasData[index] ?? false],
      isPartial: p.isPartial,
    })),
  };
}

/**
 * What a fresh 90-day answer makes of one insight, computed before anything is
 * written: the 30-day series (its last 30 days, rescaled), the 90 days
 * themselves, the forecast fitted on them, momentum, the trend class and the
 * overall score. `level` is the popularity the batch measured, when it did.
 */
export interface FreshSeries {
  insight: InsightRow;
  points: SeriesPoint[];
  points90: SeriesPoint[];
  forecast: Forecast;
  dimensions: DimensionScores;
  overall: { score: number; confidence: number };
  level: number | null | undefined;
}

export function freshSeriesOf(insight: InsightRow, answer90: InterestOverTime, level: number | null | undefined): FreshSeries {
  const points90 = answer90.points.map((p) => ({
    date: p.date,
    value: p.values[0] ?? 0,
    hasData: p.hasData[0] ?? false,
    isPartial: p.isPartial,
  }));
  if (points90.length === 0 || points90.every((p) => !p.hasData)) {
    throw new UnrecoverableError(`Google returned no data for "${insight.primary_keyword}"; previous series kept`);
  }
  const answer30 = lastDaysRescaled(answer90, 31); // the window of a 30-day request: today and the 30 days before
  const points = answer30.points.map((p) => ({
    date: p.date,
    value: p.values[0] ?? 0,
    hasData: p.hasData[0] ?? false,
    isPartial: p.isPartial,
  }));

  // Stored on its own scale (a batch scales every column by the batch's maximum), as research stores it;
  // the forecast is fitted on that same scale, so a chart can put it beside the stored 90 days.
  const own90 = lastDaysRescaled(answer90, answer90.points.length).points.map((p) => ({
    date: p.date,
    value: p.values[0] ?? 0,
    isPartial: p.isPartial,
  }));
  const clean90 = cleanSeries(own90.map((p, i) => ({ ...p, hasData: points90[i]!.hasData })));
  const forecast = fitForecast(clean90.dates, clean90.values, 7, own90.at(-1)?.date);
  if (!forecast.withheld && forecast.backtest.mase !== null) forecastMase.observe(forecast.backtest.mase);
  const seasonality = insight.dimensions.momentum?.evidence.yearly_seasonality;
  const { momentum } = assessMomentum({
    days30: points.filter((p) => p.hasData),
    days90: own90.filter((_, i) => points90[i]!.hasData),
    // The 5 years are not refetched daily: the run's reading of them stands.
    yearlySeasonality: typeof seasonality === 'number' ? seasonality : null,
    forecast7: forecast.withheld ? null : forecast.points,
  });
  const dimensions = { ...insight.dimensions, momentum };
  const clean30 = cleanSeries(points);
  const quality = seriesQuality(
    clean30.values.map((value, i) => ({ date: clean30.dates[i]!, value })),
    30,
  ).quality;
  return {
    insight,
    points,
    points90: own90,
    forecast,
    dimensions,
    overall: combineScores(dimensions, quality, SOURCE_CERTAINTY[provenanceKind(insight)]),
    level,
  };
}
