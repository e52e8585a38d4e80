// /api/insights: the catalogue (a page of the list, as JSON or CSV), an insight, its forecast, chart,
// report and series. What each answers is read and shaped by src/views/ (insight.view.ts,
// insight-list.view.ts, insight-report.view.ts); these routes add HTTP: schemas, media types, caching.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { renderInsightChart, type ChartForecastPoint } from '../../../domain/charts/insight-chart.js';
import { displayTitle, interestNoun, provenanceOf } from '../../../domain/provenance.js';
import { renderReportHtml } from '../../../domain/reports/report-html.js';
import { renderReportMarkdown } from '../../../domain/reports/report-markdown.js';
import { DIMENSIONS } from '../../../domain/scoring/dimensions.js';
import { findForecast } from '../../../insights/forecast.repository.js';
import { findInsightSeries } from '../../../insights/trend-point.repository.js';
import {
  forecastView,
  intervalOf,
  seriesOf,
  toInsightDto,
  trendDataView,
  visibleInsight,
  visibleInsightIdOf,
  type TrendWindow,
} from '../../../views/insight.view.js';
import { insightListFilters, listInsightPage, normaliseInsightListQuery } from '../../../views/insight-list.view.js';
import { INSIGHT_CSV_COLUMNS, insightListCsv, reportInputOf } from '../../../views/insight-report.view.js';
import { negotiate } from '../../negotiate.js';
import { errorResponses, IdParams, NoQuery } from '../../schemas/common.js';
import {
  ForecastSchema,
  InsightListQuery,
  InsightListSchema,
  InsightSchema,
  TrendDataSchema,
  TrendWindowQuery,
} from '../../schemas/insights.js';
import { CONTENT_TYPES, LIST_MEDIA_TYPES, MEDIA, nextPageLink, REPORT_CSP, REPORT_MEDIA_TYPES } from './insight-exports.js';

/** What the chart's line is, by window (its legend). */
const SERIES_LABELS: Record<TrendWindow, string> = {
  '30d': '30-day interest',
  '90d': '90-day interest',
  '12m': '12-month interest, weekly',
  '5y': '5-year interest, weekly',
};

export const insightRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/insights',
    {
      config: { cacheable: true },
      // Both run before any preHandler, so the response cache's key (api-guard/api-guard.ts) is made of the
      // normalised values and the media type negotiated.
      preValidation: [negotiate(LIST_MEDIA_TYPES), async (request) => normaliseInsightListQuery(request.query as Record<string, unknown>)],
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
      const { data, nextCursor } = await listInsightPage(request.db, insightListFilters(request.query), request.apiKey!);
      if (nextCursor !== null) reply.header('link', nextPageLink(request.url, nextCursor));
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
    async (request) => toInsightDto(await visibleInsight(request.db, request.params.id, request.apiKey!)),
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
      const insightId = await visibleInsightIdOf(request.db, request.params.id, request.apiKey!);
      return forecastView(request.db, insightId);
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
      const insight = await visibleInsight(reader, request.params.id, request.apiKey!);
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
      return reply.type('image/svg+xml; charset=utf-8').send(svg.toString());
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
      const row = await visibleInsight(request.db, request.params.id, request.apiKey!);
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
      const insightId = await visibleInsightIdOf(reader, request.params.id, request.apiKey!);
      return trendDataView(reader, insightId, request.query.window);
    },
  );
};
