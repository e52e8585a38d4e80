// The insights in other media types than JSON: a list page as CSV, and an
// insight's report as a printable HTML page or as Markdown (the rendering is
// in src/domain/reports/; what is read for it, and the page's own
// Content-Security-Policy, are here).
import { createHash } from 'node:crypto';
import type { Db } from '../../../db/connection.js';
import { toCsv } from '../../../domain/reports/csv.js';
import type { InsightReportInput, ReportForecast, ReportInsight, ReportRun } from '../../../domain/reports/insight-report.js';
import { REPORT_STYLESHEET } from '../../../domain/reports/report-html.js';
import { publicFailure, publicRunError } from '../../../domain/public-error.js';
import { DIMENSIONS } from '../../../domain/scoring/dimensions.js';
import type { ChartForecastPoint } from '../../../domain/charts/insight-chart.js';
import { findForecast } from '../../../insights/forecast.repository.js';
import { findInsightSeries, latestTrendPoints } from '../../../insights/trend-point.repository.js';
import { latestRunForInsight, stepsOf } from '../../../research/run.repository.js';
import { failedStepOf, runSteps } from '../../../research/run-steps.js';
import type { InsightSummaryDto } from '../../schemas.js';

export const MEDIA = {
  json: 'application/json',
  csv: 'text/csv',
  html: 'text/html',
  markdown: 'text/markdown',
} as const;

/** What GET /api/insights answers in, the first when the request does not say. */
export const LIST_MEDIA_TYPES = [MEDIA.json, MEDIA.csv] as const;
/** What GET /api/insights/{id}/report answers in. */
export const REPORT_MEDIA_TYPES = [MEDIA.html, MEDIA.markdown] as const;

export const CONTENT_TYPES = {
  csv: 'text/csv; charset=utf-8',
  html: 'text/html; charset=utf-8',
  markdown: 'text/markdown; charset=utf-8',
} as const;

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

/** The next page as an RFC 8288 Link: this request's URL with the new cursor, parameters as the client spelled them. */
export function nextPageLink(requestUrl: string, cursor: string): string {
  const url = new URL(requestUrl, 'http://localhost');
  url.searchParams.set('cursor', cursor);
  return `<${url.pathname}${url.search}>; rel="next"`;
}

/**
 * The report page's policy: the API's (nothing loads, nothing runs, no one
 * frames it), except its one stylesheet, allowed by its SHA-256. The
 * stylesheet is a constant, so the hash is computed once; a nonce would
 * change on every answer for nothing. No script, image, font or connection
 * is allowed, so a text that escaped its escaping still could not run or
 * fetch anything.
 */
export const REPORT_CSP = [
  "default-src 'none'",
  `style-src 'sha256-${createHash('sha256').update(REPORT_STYLESHEET).digest('base64')}'`,
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

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

/** A run's steps as GET /api/research-runs/{id} shows them (runSteps): a step not recorded is the run's state if it is under way, else pending. */
async function traceOf(db: Db, run: NonNullable<Awaited<ReturnType<typeof latestRunForInsight>>>): Promise<ReportRun> {
  const steps = runSteps(run, await stepsOf(db, run.id));
  return {
    id: run.id,
    status: run.status,
    provider: run.provider,
    created_at: run.created_at.toISOString(),
    finished_at: run.finished_at?.toISOString() ?? null,
    error: publicRunError(run.error, failedStepOf(run)),
    steps: steps.map(({ step, name, status, recorded: s }) => {
      return {
        step,
        name,
        status,
        summary: s?.summary ?? null,
        error: s?.error ? publicFailure(s.error) : null,
      };
    }),
  };
}
