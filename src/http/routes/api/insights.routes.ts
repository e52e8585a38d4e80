import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Db } from '../../../db/connection.js';
import { CATEGORY_VALUES, isDimensionSort, retiredCategoryReason, type InsightSort } from '../../../domain/catalog.js';
import { decodeCursor, encodeCursor, InvalidCursorError, type InsightCursor } from '../../../domain/cursor.js';
import { listInsights, type InsightListRow, type InsightRow } from '../../../insights/insight.repository.js';
import { requireInsight, requireVisibleInsightId } from './require-insight.js';
import { findInsightSeries, latestTrendPoints } from '../../../insights/trend-point.repository.js';
import { trendClassFacts, TREND_CLASSES, type TrendClass } from '../../../domain/scoring/trend-class.js';
import { findForecast } from '../../../insights/forecast.repository.js';
import { renderInsightChart, type ChartForecastPoint } from '../../../domain/charts/insight-chart.js';
import { renderReportHtml } from '../../../domain/reports/report-html.js';
import { renderReportMarkdown } from '../../../domain/reports/report-markdown.js';
import { Type } from '@sinclair/typebox';
import { DIMENSIONS } from '../../../domain/scoring/dimensions.js';
import { rankScore, isPartial } from '../../../domain/scoring/overall.js';
import { displayTitle, interestNoun, provenanceOf } from '../../../domain/provenance.js';
import { decisionSummary } from '../../../domain/research/decision-summary.js';
import { verdictOf } from '../../../domain/research/verdict.js';
import { negotiate } from '../../negotiate.js';
import { invalidParam, problem, ProblemError } from '../../problem.js';
import {
  CONTENT_TYPES,
  INSIGHT_CSV_COLUMNS,
  insightListCsv,
  LIST_MEDIA_TYPES,
  MEDIA,
  nextPageLink,
  REPORT_CSP,
  REPORT_MEDIA_TYPES,
  reportInputOf,
} from './insight-exports.js';
import {
  errorResponses,
  ForecastSchema,
  IdParams,
  InsightListQuery,
  InsightListSchema,
  InsightSchema,
  NoQuery,
  TrendDataSchema,
  TrendWindowQuery,
  type TrendWindow,
  type InsightDto,
  type InsightListQueryT,
  type InsightSummaryDto,
} from '../../schemas.js';

function linksOf(id: string) {
  const self = `/api/insights/${id}`;
  return {
    self,
    trend_data: `${self}/trend-data`,
    forecast: `${self}/forecast`,
    research: `${self}/research`,
    chart: `${self}/chart.svg`,
    methodology: '/api/methodology',
  };
}

const hitRateOf = (trendClass: TrendClass | null) => (trendClass ? trendClassFacts(trendClass).hit_rate : null);

/** What a list entry and the insight itself answer alike (a list entry is the insight without its evidence). */
function sharedFieldsOf(row: InsightListRow) {
  const { kind, label, source } = provenanceOf(row);
  return {
    id: row.id,
    // As a person reads it: a simulated or recorded insight says so wherever its title is shown.
    title: displayTitle(row.title, row),
    idea: row.idea,
    primary_keyword: row.primary_keyword,
    category: row.category,
    source: row.source,
    overall_score: row.overall_score,
    confidence: row.confidence,
    rank_score: rankScore(row.overall_score, row.confidence),
    partial: isPartial(row.dimension_scores),
    provider: row.provider,
    provenance: { kind, label, source },
    // From the scores alone, so a list entry and the insight say the same.
    verdict: verdictOf(row),
    data_from: row.data_from,
    data_as_of: row.data_as_of,
    trend_class: row.trend_class,
    trend_class_hit_rate: hitRateOf(row.trend_class),
    summary: row.summary,
    status: row.status,
    geo: row.geo,
    visibility: row.owner_account_id === null ? ('public' as const) : ('private' as const),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    links: linksOf(row.id),
  };
}

export function toInsightSummaryDto(row: InsightListRow): InsightSummaryDto {
  return { ...sharedFieldsOf(row), dimension_scores: row.dimension_scores };
}

export function toInsightDto(row: InsightRow): InsightDto {
  return {
    ...sharedFieldsOf(row),
    keywords: row.keywords,
    dimensions: row.dimensions,
    trend_class_evidence: trendEvidence(row),
    related: row.related,
    geography: row.geography,
    search_volume: row.search_volume ?? null,
    primary_choice: row.primary_choice ?? null,
    outlook: row.outlook ?? null,
    // Made when read, from the scores served beside it: it always agrees with them.
    decision: decisionSummary({
      primary_keyword: row.primary_keyword,
      title: row.title,
      data_as_of: row.data_as_of,
      confidence: row.confidence,
      dimensions: row.dimensions,
      trend_class: row.trend_class,
      outlook: row.outlook,
    }),
  };
}

function trendEvidence(row: InsightRow) {
  if (!row.trend_class) return null;
  const facts = trendClassFacts(row.trend_class);
  const reason = row.dimensions.momentum?.evidence.trend_class_reason;
  return {
    rule: facts.rule,
    reason: typeof reason === 'string' ? reason : null,
    claim: facts.claim,
    hit_rate: facts.hit_rate,
    base_rate: facts.base_rate,
    methodology: '/api/methodology#trend-classes',
  };
}

/** A comma list of allowed values (`category=a,b`), each checked; the 400 names what is allowed. Deduplicated and sorted: a set. */
function parseList<T extends string>(name: string, raw: string | undefined, allowed: readonly T[]): T[] | undefined {
  if (raw === undefined) return undefined;
  const values = raw.split(',').map((c) => c.trim());
  for (const value of values) {
    if (!(allowed as readonly string[]).includes(value)) {
      // A retired category slug ("fintech") is refused naming the one that replaced it.
      const retired = name === 'category' ? retiredCategoryReason(value) : undefined;
      throw invalidParam(name, retired ?? `has an unknown value "${value.slice(0, 60)}"`, allowed);
    }
  }
  return [...new Set(values)].sort() as T[];
}

/**
 * The list's parameters checked and written one way (sorted, once each) and the
 * search text with its spacing made plain, before the response cache keys on
 * them: spellings of one request share one entry. Each spelling used to make an
 * entry of its own (5,000 spellings of one category list, 5,000 pages).
 */
function normaliseListQuery(query: InsightListQueryT): void {
  // Not yet validated: a parameter given twice is an array here, and the schema refuses it next.
  const q = query as { category?: unknown; trend_class?: unknown; q?: unknown; geo?: unknown };
  if (typeof q.geo === 'string') q.geo = q.geo.toUpperCase();
  if (typeof q.category === 'string') q.category = parseList('category', q.category, CATEGORY_VALUES)!.join(',');
  if (typeof q.trend_class === 'string') q.trend_class = parseList('trend_class', q.trend_class, TREND_CLASSES)!.join(',');
  // A blank search stays as it is, for the handler to say so.
  if (typeof q.q === 'string' && q.q.trim() !== '') q.q = q.q.trim().replace(/\s+/g, ' ');
}

/** What the chart's line is, by window (its legend). */
const SERIES_LABELS: Record<TrendWindow, string> = {
  '30d': '30-day interest',
  '90d': '90-day interest',
  '12m': '12-month interest, weekly',
  '5y': '5-year interest, weekly',
};

/** The sort key of a row, as its cursor carries it. */
export function sortValueOf(row: InsightListRow, sort: InsightSort): number | string {
  // The repository orders `score` by rank_key (complete insights first), `overall` by the overall score alone.
  if (sort === 'score') return row.rank_key;
  if (sort === 'overall') return row.overall_score;
  if (isDimensionSort(sort)) return row.dimension_scores[sort] ?? -1;
  return row.created_at.toISOString();
}

/** Daily or weekly, as the points are (Google answers 12 months and 5 years weekly; a replayed recording may differ). */
function intervalOf(points: ReadonlyArray<{ date: string }>): 'day' | 'week' {
  if (points.length < 2) return 'day';
  return Date.parse(points[1]!.date) - Date.parse(points[0]!.date) >= 7 * 86_400_000 ? 'week' : 'day';
}

interface WindowPoint {
  date: string;
  value: number;
  is_partial: boolean;
  fetched_at?: Date;
}

/** An insight's series for a window: the 30 days from trend_points, the longer ones as research (or the refresh) stored them. */
async function seriesOf(reader: Db, insightId: string, window: TrendWindow): Promise<{ points: WindowPoint[]; fetchedAt: Date | null }> {
  if (window === '30d') return { points: await latestTrendPoints(reader, insightId, 30), fetchedAt: null };
  const row = await findInsightSeries(reader, insightId, window);
  if (!row) {
    throw new ProblemError(
      problem(
        'notFound',
        `Insight ${insightId} has no ${window} series: it was not researched with one (demo insights carry 30 and 90 days; insights researched before 2026-11-23 only 30).`,
      ),
    );
  }
  return {
    points: row.points.map((p) => ({ date: p.date, value: Math.round(p.value), is_partial: p.is_partial })),
    fetchedAt: row.fetched_at,
  };
}

export const insightRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/insights',
    {
      config: { cacheable: true },
      // Both run before any preHandler, so the response cache's key (api-guard/api-guard.ts) is made of the
      // normalised values and the media type negotiated.
      preValidation: [negotiate(LIST_MEDIA_TYPES), async (request) => normaliseListQuery(request.query as InsightListQueryT)],
      schema: {
        tags: ['insights'],
        operationId: 'listInsights',
        summary: 'List insights',
        description:
          'Filtered, sorted, keyset-paginated. Follow next_cursor (or the Link header) until it is null. ' +
          'As CSV with Accept: text/csv: a header record and one record per insight of the page (RFC 4180; a text cell starting with = + - @, a tab or CR is prefixed with a quote).',
        querystring: InsightListQuery,
        response: {
          200: {
            description: 'A page of insights: JSON, or CSV when the request asks for text/csv',
            headers: {
              Link: Type.String({ description: 'The next page, when there is one: </api/insights?…&cursor=…>; rel="next"' }),
              Vary: Type.String({ description: 'Accept: the answer depends on it' }),
            },
            content: {
              [MEDIA.json]: { schema: InsightListSchema },
              [MEDIA.csv]: {
                schema: Type.String({
                  description: `Columns: ${INSIGHT_CSV_COLUMNS.join(', ').replace(DIMENSIONS.join(', '), "the 8 dimensions' scores")}`,
                }),
              },
            },
          },
          ...errorResponses(400, 401, 403, 406, 429),
        },
      },
    },
    async (request, reply) => {
      const q = request.query;
      let after: InsightCursor | undefined;
      if (q.cursor !== undefined) {
        try {
          after = decodeCursor(q.cursor, q.sort);
        } catch (error) {
          if (error instanceof InvalidCursorError) throw invalidParam('cursor', error.reason);
          throw error;
        }
      }
      const text = q.q?.trim();
      if (q.q !== undefined && !text) throw invalidParam('q', 'is blank: give at least one word to search for');
      const { rows, hasMore } = await listInsights(request.db, {
        limit: q.limit,
        minScore: q.min_score,
        source: q.source,
        categories: parseList('category', q.category, CATEGORY_VALUES),
        trendClasses: parseList('trend_class', q.trend_class, TREND_CLASSES),
        text,
        ...(q.geo !== undefined ? { geo: q.geo.toUpperCase() } : {}),
        sort: q.sort,
        after,
        viewer: { accountId: request.apiKey!.accountId },
      });
      const last = rows.at(-1);
      const nextCursor = hasMore && last ? encodeCursor({ sort: q.sort, value: sortValueOf(last, q.sort), id: last.id }) : null;
      if (nextCursor !== null) reply.header('link', nextPageLink(request.url, nextCursor));
      const data = rows.map(toInsightSummaryDto);
      if (request.representation === MEDIA.csv) return reply.type(CONTENT_TYPES.csv).send(insightListCsv(data));
      return { data, next_cursor: nextCursor };
    },
  );

  app.get(
    '/insights/:id',
    {
      config: { cacheable: true },
      schema: {
        tags: ['insights'],
        operationId: 'getInsight',
        summary: 'One insight with its 8 dimensions and their evidence',
        params: IdParams,
        querystring: NoQuery,
        response: { 200: InsightSchema, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => toInsightDto(await requireInsight(request.db, request.params.id, request.apiKey!)),
  );

  app.get(
    '/insights/:id/forecast',
    {
      config: { cacheable: true },
      schema: {
        tags: ['insights'],
        operationId: 'getInsightForecast',
        summary: 'The 7-day forecast with 80% and 95% intervals and its backtest, or why it is withheld',
        params: IdParams,
        querystring: NoQuery,
        response: { 200: ForecastSchema, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => {
      const insightId = await requireVisibleInsightId(request.db, request.params.id, request.apiKey!);
      const row = await findForecast(request.db, insightId);
      if (!row) {
        throw new ProblemError(
          problem('notFound', `Insight ${insightId} has no forecast yet (demo insights are not forecast; research and refresh make one).`),
        );
      }
      if (row.withheld) return { withheld: true as const, reason: row.reason ?? 'withheld', generated_at: row.generated_at.toISOString() };
      const backtest = row.backtest ?? {};
      return {
        withheld: false as const,
        model: row.model ?? 'unknown',
        generated_at: row.generated_at.toISOString(),
        horizon: row.horizon,
        points: row.points as Array<{
          date: string;
          value: number;
          lower_80: number;
          upper_80: number;
          lower_95: number;
          upper_95: number;
        }>,
        backtest: {
          mase: backtest.mase ?? null,
          mase_seasonal_naive: backtest.mase_seasonal_naive ?? null,
          coverage_80: backtest.coverage_80 ?? null,
          coverage_95: backtest.coverage_95 ?? null,
        },
      };
    },
  );

  app.get(
    '/insights/:id/chart.svg',
    {
      config: { cacheable: true },
      schema: {
        tags: ['insights'],
        operationId: 'getInsightChart',
        summary: 'A picture: the series (30 days by default, or ?window=) and the 7-day forecast with 80% and 95% bands (SVG)',
        params: IdParams,
        querystring: TrendWindowQuery,
        produces: ['image/svg+xml'],
        response: { 200: Type.String({ description: 'image/svg+xml' }), ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request, reply) => {
      const reader = request.db;
      const insight = await requireInsight(reader, request.params.id, request.apiKey!);
      const { window } = request.query;
      const { points } = await seriesOf(reader, insight.id, window);
      // The forecast continues the daily series; on a weekly chart its 7 days would be a dot.
      const forecast = window === '12m' || window === '5y' ? undefined : await findForecast(reader, insight.id);
      // Every forecast is fitted on the 90 days: drawn on that scale (see forecastOnSeries).
      const fittedOn =
        !forecast || forecast.withheld
          ? undefined
          : window === '90d'
            ? points
            : (await findInsightSeries(reader, insight.id, '90d'))?.points;
      const svg = renderInsightChart({
        forecastFittedOn: fittedOn?.map((p) => ({ date: p.date, value: p.value })),
        // What the line is: a replayed recording may answer a daily window by week.
        seriesLabel:
          intervalOf(points) === 'week' && (window === '30d' || window === '90d')
            ? `${points.length} weeks of interest (as recorded)`
            : SERIES_LABELS[window],
        title: displayTitle(insight.title, insight),
        caption: `${interestNoun(provenanceOf(insight).kind)}, ${points[0]?.date ?? '–'} to ${points.at(-1)?.date ?? '–'}`,
        series: points.map((p) => ({ date: p.date, value: p.value })),
        forecast: forecast && !forecast.withheld ? (forecast.points as ChartForecastPoint[]) : null,
        note:
          window === '12m' || window === '5y'
            ? `${window === '12m' ? '12 months' : '5 years'}, weekly, as researched`
            : forecast?.withheld
              ? `forecast withheld: ${forecast.reason}`
              : forecast
                ? undefined
                : 'no forecast yet',
      });
      return reply.type('image/svg+xml; charset=utf-8').send(svg);
    },
  );

  app.get(
    '/insights/:id/report',
    {
      // Not cached: the run behind an insight moves on (its last steps, a cancel) without the read model changing.
      preValidation: negotiate(REPORT_MEDIA_TYPES),
      schema: {
        tags: ['insights'],
        operationId: 'getInsightReport',
        summary:
          'The insight as a report: a printable HTML page (text/html, the default) or Markdown (text/markdown): summary, chart, the 8 dimensions with their evidence, the forecast and the research trace',
        params: IdParams,
        querystring: NoQuery,
        response: {
          200: {
            description: 'The report, in the media type the Accept header asks for',
            headers: { Vary: Type.String({ description: 'Accept: the answer depends on it' }) },
            content: {
              [MEDIA.html]: {
                schema: Type.String({
                  description: 'A self-contained page (inline styles and SVG, no script), with a print stylesheet',
                }),
              },
              [MEDIA.markdown]: { schema: Type.String({ description: 'GitHub-flavoured Markdown' }) },
            },
          },
          ...errorResponses(400, 401, 403, 404, 406, 429),
        },
      },
    },
    async (request, reply) => {
      const row = await requireInsight(request.db, request.params.id, request.apiKey!);
      // What research stored beside the insight shows even before the insight's JSON carries it; once it does, the JSON's wins.
      const insight = toInsightDto(row);
      const input = await reportInputOf(request.db, insight, new Date());
      if (request.representation === MEDIA.markdown) return reply.type(CONTENT_TYPES.markdown).send(renderReportMarkdown(input));
      // The API's policy loads nothing at all; the page needs its own stylesheet (allowed by its hash, nothing else).
      return reply.header('content-security-policy', REPORT_CSP).type(CONTENT_TYPES.html).send(renderReportHtml(input));
    },
  );

  app.get(
    '/insights/:id/trend-data',
    {
      config: { cacheable: true },
      schema: {
        tags: ['insights'],
        operationId: 'getInsightTrendData',
        summary: 'The Google Trends series (0–100): the 30 most recent days by default, or ?window=90d|12m|5y',
        params: IdParams,
        querystring: TrendWindowQuery,
        response: { 200: TrendDataSchema, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => {
      const reader = request.db;
      const insightId = await requireVisibleInsightId(reader, request.params.id, request.apiKey!);
      const { window } = request.query;
      const { points, fetchedAt } = await seriesOf(reader, insightId, window);
      return {
        window,
        interval: intervalOf(points),
        data: points.map((p) => ({
          date: p.date,
          value: p.value,
          is_partial: p.is_partial,
          fetched_at: (p.fetched_at ?? fetchedAt)!.toISOString(),
        })),
        next_cursor: null,
      };
    },
  );
};
