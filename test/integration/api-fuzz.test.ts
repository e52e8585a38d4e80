// Property: no request, however malformed, makes the API answer 5xx. Random
// paths and query strings, then well-formed cursors (base64url JSON) with
// hostile contents, mutated real cursors, and extreme numbers in every
// numeric parameter: every value is checked where it enters.
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
  for (const score of [0.1, 0.2, 0.3]) await insertInsight(t.database.db, { score });
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

const hostileScalar = fc.oneof(
  fc.double({ noNaN: true }),
  fc.constantFrom(1e308, -1e308, 5e-324, 0, -0, 1, 1.0000001, Number.MAX_SAFE_INTEGER + 2, null, true, false),
  fc.constantFrom(
    '-271821-04-20T00:00:00.000Z',
    '+275760-09-13T00:00:00.000Z',
    '2026-02-31T00:00:00.000Z',
    '0000-01-01T00:00:00.000Z',
    '2026-11-22T10:00:00.000Z\u0000',
    'ins_\u0000',
    '\u001b[31m',
    '\u0085\u009b',
    'Infinity',
    'NaN',
    '1e400',
    '',
  ),
  fc.string({ maxLength: 80 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constant({}),
  fc.array(fc.integer(), { maxLength: 3 }),
);
const hostileCursor = fc
  .tuple(fc.constantFrom('score', 'newest', 'oldest', 'x', null), hostileScalar, hostileScalar, fc.boolean())
  .map(([sort, value, cursorId, extra]) =>
    Buffer.from(JSON.stringify(extra ? [sort, value, cursorId, 0] : [sort, value, cursorId])).toString('base64url'),
  );
const extremeNumber = fc.oneof(
  fc.constantFrom(
    'Infinity',
    '-Infinity',
    'NaN',
    '1e308',
    '-1e308',
    '1e-400',
    '1e400',
    '0x10',
    '0b1',
    '1_000',
    ' 1',
    '1 ',
    '+1',
    '.5',
    '5.',
    '00000000000000000000001',
    '9'.repeat(400),
  ),
  fc.double().map(String),
  fc.bigInt().map(String),
);

describe('every value is validated where it enters', () => {
  it('hostile but well-formed cursors, on every sort, give 400 problems', async () => {
    await fc.assert(
      fc.asyncProperty(hostileCursor, fc.constantFrom('score', 'newest', 'oldest'), async (cursor, sort) => {
        const res = await t.app.inject({ url: `/api/insights?sort=${sort}&cursor=${cursor}`, headers: bearer(key) });
        expect(res.statusCode, cursor).toBe(400);
        expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      }),
      { numRuns: 1000 },
    );
  });

  it('mutated real cursors give 200 or a 400 problem, never 5xx', async () => {
    const cursors: Array<{ sort: string; cursor: string }> = [];
    for (const sort of ['score', 'newest', 'oldest']) {
      const res = await t.app.inject({ url: `/api/insights?sort=${sort}&limit=1`, headers: bearer(key) });
      cursors.push({ sort, cursor: (res.json() as { next_cursor: string }).next_cursor });
    }
    const mutation = fc.tuple(
      fc.nat(),
      fc.nat(),
      fc.constantFrom('flip', 'cut', 'append', 'swap-json'),
      fc.string({ unit: 'binary', maxLength: 8 }),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...cursors), mutation, async ({ sort, cursor }, [i, j, kind, text]) => {
        let mutated = cursor;
        if (kind === 'flip') mutated = cursor.slice(0, i % cursor.length) + 'AZaz09_-'[j % 8] + cursor.slice((i % cursor.length) + 1);
        if (kind === 'cut') mutated = cursor.slice(0, i % cursor.length);
        if (kind === 'append') mutated = cursor + Buffer.from(text).toString('base64url');
        if (kind === 'swap-json') {
          const decoded = Buffer.from(cursor, 'base64url').toString('utf8');
          const at = i % decoded.length;
          mutated = Buffer.from(decoded.slice(0, at) + text + decoded.slice(at)).toString('base64url');
        }
        const res = await t.app.inject({ url: `/api/insights?sort=${sort}&cursor=${encodeURIComponent(mutated)}`, headers: bearer(key) });
        expect([200, 400], `${sort} ${mutated}`).toContain(res.statusCode);
      }),
      { numRuns: 800 },
    );
  });

  it('extreme and non-finite numbers in every numeric parameter give 200 or a 400 problem', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('limit', 'min_score'), extremeNumber, async (name, value) => {
        const res = await t.app.inject({ url: `/api/insights?${name}=${encodeURIComponent(value)}`, headers: bearer(key) });
        expect([200, 400], `${name}=${value}`).toContain(res.statusCode);
      }),
      { numRuns: 600 },
    );
  });
});
