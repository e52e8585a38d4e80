// Property: no request, however malformed, makes the API answer 5xx.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestApp } from '../support/app.js';
import { insertInsight } from '../support/fixtures.js';

let t: TestApp;
let key: string;
let id: string;

beforeAll(async () => {
  t = await createTestApp();
  key = await t.key('enterprise');
  id = await insertInsight(t.database.db, { score: 0.5 });
});
afterAll(() => t.close());

const paramName = fc.oneof(
  fc.constantFrom('limit', 'min_score', 'source', 'category', 'sort', 'cursor', 'id', 'x'),
  fc.string({ maxLength: 12 }),
);
const paramValue = fc.oneof(
  fc.constantFrom('', '0', '-1', '1e400', 'NaN', 'null', '[]', '{}', '%', '%zz', '%E0%A4%A', '..', 'score', 'newest', 'ai-ml,', ',,,'),
  fc.integer().map(String),
  fc.double().map(String),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
);
const query = fc
  .array(fc.tuple(paramName, paramValue, fc.boolean()), { maxLength: 6 })
  .map((pairs) => pairs.map(([k, v, raw]) => (raw ? `${k}=${v}` : `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)).join('&'));
const path = fc.oneof(
  fc.constantFrom(
    '/api/insights',
    `/api/insights/ID`,
    `/api/insights/ID/trend-data`,
    '/api/categories',
    '/api/sources',
    '/api/usage',
    '/api/insights/',
    '/api//insights',
    '/api/insights/%00',
    '/api/insights/%E0%A4%A',
    '/healthz',
    '/readyz',
    '/openapi.json',
  ),
  fc.string({ maxLength: 60 }).map((s) => `/api/insights/${encodeURIComponent(s)}`),
  fc.webPath(),
);
const method = fc.constantFrom('GET', 'GET', 'GET', 'HEAD', 'POST', 'DELETE', 'OPTIONS', 'PUT', 'PATCH');

describe('the API never answers 5xx to bad input', () => {
  it('holds for random paths, methods and query strings', async () => {
    await fc.assert(
      fc.asyncProperty(path, query, method, fc.boolean(), async (p, q, m, authed) => {
        const url = `${p.startsWith('/') ? '' : '/'}${p.replace('ID', id)}${q ? `?${q}` : ''}`;
        const res = await t.app.inject({ method: m as 'GET', url, headers: authed ? bearer(key) : {} });
        expect(res.statusCode, `${m} ${url}`).toBeLessThan(500);
        if (res.statusCode >= 400 && m !== 'HEAD') {
          expect(res.headers['content-type'], `${m} ${url}`).toMatch(/^application\/problem\+json/);
        }
      }),
      { numRuns: 1500 },
    );
  });
});
