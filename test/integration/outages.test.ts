// A backing service that is away is a 503 with Retry-After, never a 500, and
// /readyz says which one without repeating its error text to the caller.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/api-keys/api-key.repository.js';
import { buildTestApp } from '../support/app.js';
import { createRedis } from '../../src/redis/connection.js';
import { freePort } from '../../scripts/lib/free-port.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import type { TestRedis } from '../support/redis.js';
import { createTestStack, type TestStack } from '../support/stack.js';

let database: TestDatabase;
let redis: TestRedis;
let stack: TestStack;
beforeAll(async () => {
  stack = await createTestStack();
  ({ database, redis } = stack);
});
afterAll(() => stack?.close());

const realPostgres = process.env.DATABASE_URL !== undefined;

describe('outages are 503, never 500', () => {
  it('a Redis that is not there: /api is 503 with Retry-After, /readyz names Redis and nothing else', async () => {
    const { key } = await createApiKey(database.db, 'outage', 'free');
    const nowhere = createRedis(`redis://127.0.0.1:${await freePort()}`);
    const app = await buildTestApp({ database, redis, client: nowhere }, { overloadMaxEventLoopDelayMs: 0 });
    try {
      const res = await app.inject({ url: '/api/insights', headers: { authorization: `Bearer ${key}` } });
      expect(res.statusCode).toBe(503);
      expect(res.headers['retry-after']).toBe('5');
      expect(res.headers['content-type']).toMatch(/problem\+json/);
      const ready = await app.inject({ url: '/readyz' });
      expect(ready.statusCode).toBe(503);
      expect(ready.json()).toEqual({ status: 'unavailable', checks: { postgres: { ok: true }, redis: { ok: false } } });
    } finally {
      await app.close();
      nowhere.disconnect();
    }
  });

  it.runIf(realPostgres)(
    'a dropped database (SQLSTATE 3D000, 57P01): /api is 503, /readyz names Postgres, no database name leaks',
    async () => {
      // A second database of its own, dropped under the app: not the stack's, which the other tests go on using.
      const doomed = await createTestDatabase();
      const { key } = await createApiKey(doomed.db, 'outage', 'enterprise');
      const app = await buildTestApp({ database: doomed, redis }, { overloadMaxEventLoopDelayMs: 0, cacheTtlSeconds: 0 });
      try {
        expect((await app.inject({ url: '/api/insights', headers: { authorization: `Bearer ${key}` } })).statusCode).toBe(200);
        const name = new URL(doomed.url).pathname.slice(1);
        await sql`drop database ${sql.id(name)} with (force)`.execute(database.db);
        for (const url of ['/api/insights', '/api/categories', '/api/insights?limit=3&sort=newest']) {
          const res = await app.inject({ url, headers: { authorization: `Bearer ${key}` } });
          expect(res.statusCode, url).toBe(503);
          expect(res.headers['retry-after']).toBe('5');
          expect(res.body).not.toContain(name);
        }
        const ready = await app.inject({ url: '/readyz' });
        expect(ready.statusCode).toBe(503);
        expect(ready.json()).toEqual({ status: 'unavailable', checks: { postgres: { ok: false }, redis: { ok: true } } });
        expect(ready.body).not.toContain(name);
      } finally {
        await app.close();
        await doomed.destroy();
      }
    },
  );
});
