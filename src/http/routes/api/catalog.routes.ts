import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Db } from '../../../db/connection.js';
import { CATEGORIES, SOURCE_DESCRIPTIONS } from '../../../domain/catalog.js';
import { countInsightsBy } from '../../../insights/insight.repository.js';
import { CatalogSchema, errorResponses, NoQuery } from '../../schemas.js';

/** The allowed values of the `category` and `source` filters, with how many insights each has. */
export const catalogRoutes: FastifyPluginAsyncTypebox<{ db: Db }> = async (app, { db }) => {
  app.get(
    '/categories',
    {
      config: { cacheable: true },
      schema: {
        tags: ['catalog'],
        summary: 'Allowed values of the category filter',
        querystring: NoQuery,
        response: { 200: CatalogSchema, ...errorResponses(400, 401, 429) },
      },
    },
    async (request) => {
      const counts = await countInsightsBy(request.readDb ?? db, 'category');
      return {
        data: Object.entries(CATEGORIES).map(([id, description]) => ({ id, description, insights: counts.get(id) ?? 0 })),
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
        summary: 'Allowed values of the source filter',
        querystring: NoQuery,
        response: { 200: CatalogSchema, ...errorResponses(400, 401, 429) },
      },
    },
    async (request) => {
      const counts = await countInsightsBy(request.readDb ?? db, 'source');
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
