import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { CATEGORIES, SOURCE_DESCRIPTIONS } from '../../../domain/catalog.js';
import { countInsightsBy } from '../../../insights/insight.repository.js';
import { methodology } from '../../../domain/scoring/methodology.js';
import { CatalogSchema, CategoryCatalogSchema, MethodologySchema } from '../../schemas/catalog.js';
import { errorResponses, NoQuery } from '../../schemas/common.js';

/**
 * The allowed values of the `category` and `source` filters, with how many
 * insights each has; and the methodology: what the scores and trend classes
 * mean and how often they came true.
 */
export const catalogRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const published = methodology();
  app.get(
    '/methodology',
    {
      config: { cacheable: true },
      schema: {
        tags: ['catalog'],
        operationId: 'getMethodology',
        summary: 'How every score is computed, its weight, and the measurements behind them',
        description:
          "Each dimension's formula, evidence and weight; for momentum and the trend classes, the figures measured on real Google Trends series (data, method, date) and how to reproduce them (npm run bench:momentum); for pain and intent, how the evidence read today agrees with the related-list evidence on recorded answers (npm run bench:evidence).",
        querystring: NoQuery,
        response: { 200: MethodologySchema, ...errorResponses(400, 401, 403, 429) },
      },
    },
    async () => published,
  );

  app.get(
    '/categories',
    {
      config: { cacheable: true },
      schema: {
        tags: ['catalog'],
        operationId: 'listCategories',
        summary: 'Allowed values of the category filter',
        description: "Google's top-level categories, as Google Trends files searches, each with Google's id; and uncategorized.",
        querystring: NoQuery,
        response: { 200: CategoryCatalogSchema, ...errorResponses(400, 401, 403, 429) },
      },
    },
    async (request) => {
      const counts = await countInsightsBy(request.db, 'category', request.apiKey!);
      return {
        data: Object.entries(CATEGORIES).map(([id, { google_id, name }]) => ({
          id,
          description: name,
          google_id,
          insights: counts.get(id) ?? 0,
        })),
        next_cursor: null,
      };
    },
  );

  app.get(
    '/sources',
    {
      config: { cacheable: true },
      schema: {
        tags: ['catalog'],
        operationId: 'listSources',
        summary: 'Allowed values of the source filter',
        querystring: NoQuery,
        response: { 200: CatalogSchema, ...errorResponses(400, 401, 403, 429) },
      },
    },
    async (request) => {
      const counts = await countInsightsBy(request.db, 'source', request.apiKey!);
      return {
        data: Object.entries(SOURCE_DESCRIPTIONS).map(([id, description]) => ({
          id,
          description,
          insights: counts.get(id) ?? 0,
        })),
        next_cursor: null,
      };
    },
  );
};
