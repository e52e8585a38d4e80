import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Db } from '../../../db/connection.js';
import { CATEGORY_VALUES, type Category } from '../../../domain/catalog.js';
import { decodeCursor, encodeCursor, InvalidCursorError, type InsightCursor } from '../../../domain/cursor.js';
import { isId } from '../../../domain/ids.js';
import { findInsight, listInsights, type InsightListRow, type InsightRow } from '../../../insights/insight.repository.js';
import { latestTrendPoints } from '../../../insights/trend-point.repository.js';
import { findForecast } from '../../../insights/forecast.repository.js';
import { renderInsightChart, type ChartForecastPoint } from '../../../domain/charts/insight-chart.js';
import { Type } from '@sinclair/typebox';
import { invalidParam, problem, ProblemError } from '../../problem.js';
import {
  errorResponses,
  ForecastSchema,
  IdParams,
  InsightListQuery,
  InsightListSchema,
  InsightSchema,
  NoQuery,
  TrendDataSchema,
  type InsightDto,
  type InsightSummaryDto,
} from '../../schemas.js';

function linksOf(id: string) {
  const self = `/api/insights/${id}`;
  return { self, trend_data: `${self}/trend-data`, forecast: `${self}/forecast`, research: `${self}/research` };
}

export function toInsightSummaryDto(row: InsightListRow): InsightSummaryDto {
  return {
    id: row.id,
    title: row.title,
    idea: row.idea,
    primary_keyword: row.primary_keyword,
    category: row.category,
    source: row.source,
    overall_score: row.overall_score,
    confidence: row.confidence,
    dimension_scores: row.dimension_scores,
    summary: row.summary,
    status: row.status,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    links: linksOf(row.id),
  };
}

export function toInsightDto(row: InsightRow): InsightDto {
  return {
    id: row.id,
    title: row.title,
    idea: row.idea,
    primary_keyword: row.primary_keyword,
    keywords: row.keywords,
    category: row.category,
    source: row.source,
    overall_score: row.overall_score,
    confidence: row.confidence,
    dimensions: row.dimensions,
    summary: row.summary,
    status: row.status,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    links: linksOf(row.id),
  };
}

function parseCategories(raw: string | undefined): Category[] | undefined {
  if (raw === undefined) return undefined;
  const values = raw.split(',').map((c) => c.trim());
  for (const value of values) {
    if (!(CATEGORY_VALUES as string[]).includes(value)) {
      throw invalidParam('category', `has an unknown value "${value.slice(0, 60)}"`, CATEGORY_VALUES);
    }
  }
  return [...new Set(values)] as Category[];
}

function notFound(id: string): ProblemError {
  return new ProblemError(problem('notFound', `No insight has the id "${id.slice(0, 64)}".`));
}

async function requireInsight(db: Db, id: string): Promise<InsightRow> {
  // Ids that cannot exist are answered without a query.
  const row = isId('insight', id) ? await findInsight(db, id) : undefined;
  if (!row) throw notFound(id);
  return row;
}

export const insightRoutes: FastifyPluginAsyncTypebox<{ db: Db }> = async (app, { db }) => {
  app.get(
    '/insights',
    {
      config: { cacheable: true },
      schema: {
        tags: ['insights'],
        summary: 'List insights',
        description: 'Filtered, sorted, keyset-paginated. Follow next_cursor until it is null.',
        querystring: InsightListQuery,
        response: { 200: InsightListSchema, ...errorResponses(400, 401, 429) },
      },
    },
    async (request) => {
      const q = request.query;
      let after: InsightCursor | undefined;
      if (q.cursor !== undefined) {
        try {
          after = decodeCursor(q.cursor, q.sort);
        } catch (error) {
          if (error instanceof InvalidCursorError) throw invalidParam('cursor', error.message);
          throw error;
        }
      }
      const { rows, hasMore } = await listInsights(request.readDb ?? db, {
        limit: q.limit,
        minScore: q.min_score,
        source: q.source,
        categories: parseCategories(q.category),
        sort: q.sort,
        after,
      });
      const last = rows.at(-1);
      const nextCursor =
        hasMore && last
          ? encodeCursor({
              sort: q.sort,
              value: q.sort === 'score' ? last.overall_score : last.created_at.toISOString(),
              id: last.id,
            })
          : null;
      return { data: rows.map(toInsightSummaryDto), next_cursor: nextCursor };
    },
  );

  app.get(
    '/insights/:id',
    {
      config: { cacheable: true },
      schema: {
        tags: ['insights'],
        summary: 'One insight with its 8 dimensions and their evidence',
        params: IdParams,
        querystring: NoQuery,
        response: { 200: InsightSchema, ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (request) => toInsightDto(await requireInsight(request.readDb ?? db, request.params.id)),
  );

  app.get(
    '/insights/:id/forecast',
    {
      config: { cacheable: true },
      schema: {
        tags: ['insights'],
        summary: 'The 7-day forecast with 80% and 95% intervals and its backtest, or why it is withheld',
        params: IdParams,
        querystring: NoQuery,
        response: { 200: ForecastSchema, ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (request) => {
      const insight = await requireInsight(request.readDb ?? db, request.params.id);
      const row = await findForecast(request.readDb ?? db, insight.id);
      if (!row) {
        throw new ProblemError(problem('notFound', `Insight ${insight.id} has no forecast yet (demo insights are not forecast; research and refresh make one).`));
      }
      if (row.withheld) return { withheld: true as const, reason: row.reason ?? 'withheld', generated_at: row.generated_at.toISOString() };
      const backtest = row.backtest ?? {};
      return {
        withheld: false as const,
        model: row.model ?? 'unknown',
        generated_at: row.generated_at.toISOString(),
        horizon: row.horizon,
        points: row.points as Array<{ date: string; value: number; lower_80: number; upper_80: number; lower_95: number; upper_95: number }>,
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
        summary: 'A picture: the 30-day series and the 7-day forecast with 80% and 95% bands (SVG)',
        params: IdParams,
        querystring: NoQuery,
        produces: ['image/svg+xml'],
        response: { 200: Type.String({ description: 'image/svg+xml' }), ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (request, reply) => {
      const insight = await requireInsight(request.readDb ?? db, request.params.id);
      const points = await latestTrendPoints(request.readDb ?? db, insight.id, 30);
      const forecast = await findForecast(request.readDb ?? db, insight.id);
      const svg = renderInsightChart({
        title: insight.title,
        series: points.map((p) => ({ date: p.date, value: p.value })),
        forecast: forecast && !forecast.withheld ? (forecast.points as ChartForecastPoint[]) : null,
        note: forecast?.withheld ? `forecast withheld: ${forecast.reason}` : forecast ? undefined : 'no forecast yet',
      });
      return reply.type('image/svg+xml; charset=utf-8').send(svg);
    },
  );

  app.get(
    '/insights/:id/trend-data',
    {
      config: { cacheable: true },
      schema: {
        tags: ['insights'],
        summary: 'The 30 most recent daily Google Trends points (0–100)',
        params: IdParams,
        querystring: NoQuery,
        response: { 200: TrendDataSchema, ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (request) => {
      const insight = await requireInsight(request.readDb ?? db, request.params.id);
      const points = await latestTrendPoints(request.readDb ?? db, insight.id, 30);
      return {
        data: points.map((p) => ({
          date: p.date,
          value: p.value,
          is_partial: p.is_partial,
          fetched_at: p.fetched_at.toISOString(),
        })),
        next_cursor: null,
      };
    },
  );
};
