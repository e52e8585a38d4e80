// An insight's exports as every front door gives them (the API's CSV list and report, the account pages'
// downloads, an MCP server's resources): the list as CSV, and what a report shows beside the insight
// (its 30 days, its forecast, the run behind it). The rendering is in src/domain/reports/.
import type { Db } from '../db/connection.js';
import type { ChartForecastPoint } from '../domain/charts/insight-chart.js';
import { toCsv } from '../domain/reports/csv.js';
import type { InsightReportInput, ReportForecast, ReportInsight, ReportRun } from '../domain/reports/insight-report.js';
import { publicRunError } from '../domain/public-error.js';
import { DIMENSIONS } from '../domain/scoring/dimensions.js';
import { findForecast } from '../insights/forecast.repository.js';
import { findInsightSeries, latestTrendPoints } from '../insights/trend-point.repository.js';
import { failedStepOf } from '../research/run-steps.js';
import { latestRunForInsight, stepsOf } from '../research/run.repository.js';
import type { InsightSummaryDto } from './insight.view.js';
import { runStepViews } from './run.view.js';

/** The columns of a list page as CSV, in order. */
export const INSIGHT_CSV_COLUMNS = [
  'id',
  'title',
  'idea',
  // The phrase researched (founder review, issue 47): every number describes it, not the idea's words.
  'search_phrase',
  'category',
  'overall_score',
  'confidence',
  'rank_score',
  'partial',
  'dimensions_scored',
  ...DIMENSIONS,
  'trend_class',
  'source',
  'geo',
  'provider',
  'provenance',
  'data_from',
  'data_as_of',
  'visibility',
  'created_at',
  'updated_at',
] as const;

/** A list page as CSV: a header record and one record per insight, in the page's order. */
export function insightListCsv(items: readonly InsightSummaryDto[]): string {
  return toCsv(
    INSIGHT_CSV_COLUMNS,
    items.map((item) => {
      const scores = DIMENSIONS.map((d) => item.dimension_scores[d] ?? null);
      return [
        item.id,
        item.title,
        item.idea,
        item.primary_keyword,
        item.category,
        item.overall_score,
        item.confidence,
        item.rank_score,
        item.partial,
        scores.filter((s) => s !== null).length,
        ...scores,
        item.trend_class,
        item.source,
        item.geo,
        item.provider,
        item.provenance.kind,
        item.data_from,
        item.data_as_of,
        item.visibility,
        item.created_at,
        item.updated_at,
      ];
    }),
  );
}

/** What a report shows of an insight beside the insight itself: its 30 days, its forecast and the run behind it. */
export async function reportInputOf(db: Db, insight: ReportInsight, now: Date): Promise<InsightReportInput> {
  const [points, forecast, run, days90] = await Promise.all([
    latestTrendPoints(db, insight.id, 30),
    findForecast(db, insight.id),
    latestRunForInsight(db, insight.id),
    findInsightSeries(db, insight.id, '90d'),
  ]);
  return {
    insight,
    series: points.map((p) => ({ date: p.date, value: p.value })),
    // The series the forecast was fitted on, so the chart draws it on the 30 days' scale.
    ...(days90 ? { forecastFittedOn: days90.points.map((p) => ({ date: p.date, value: p.value })) } : {}),
    forecast: !forecast
      ? null
      : forecast.withheld
        ? ({
            withheld: true,
            reason: forecast.reason ?? 'withheld',
            generated_at: forecast.generated_at.toISOString(),
          } satisfies ReportForecast)
        : {
            withheld: false,
            model: forecast.model ?? 'unknown',
            generated_at: forecast.generated_at.toISOString(),
            points: forecast.points as ChartForecastPoint[],
            backtest: {
              mase: forecast.backtest?.mase ?? null,
              mase_seasonal_naive: forecast.backtest?.mase_seasonal_naive ?? null,
              coverage_80: forecast.backtest?.coverage_80 ?? null,
              coverage_95: forecast.backtest?.coverage_95 ?? null,
            },
          },
    run: run ? await traceOf(db, run) : null,
    generatedAt: now.toISOString(),
  };
}

/** A run's steps as GET /api/research-runs/{id} shows them (runStepViews): a step not recorded is the run's state if it is under way, else pending. */
async function traceOf(db: Db, run: NonNullable<Awaited<ReturnType<typeof latestRunForInsight>>>): Promise<ReportRun> {
  const steps = runStepViews(run, await stepsOf(db, run.id));
  return {
    id: run.id,
    status: run.status,
    provider: run.provider,
    created_at: run.created_at.toISOString(),
    finished_at: run.finished_at?.toISOString() ?? null,
    error: publicRunError(run.error, failedStepOf(run)),
    steps: steps.map(({ step, name, status, summary, error }) => ({ step, name, status, summary, error })),
  };
}
