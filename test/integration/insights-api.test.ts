import { rankKeyOf } from '../../src/domain/provenance.js';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { announceKeyChange } from '../../src/api-keys/api-key-cache.js';
import { createApiKey, revokeApiKey } from '../../src/api-keys/api-key.repository.js';
import { bumpReadModelVersion, ReadModelVersionWatcher } from '../../src/redis/read-model-version.js';
import { createRedis } from '../../src/redis/connection.js';
import { CATEGORY_VALUES, SOURCE_VALUES } from '../../src/domain/catalog.js';
import { DIMENSIONS } from '../../src/domain/scoring/dimensions.js';
import { generateApiKey } from '../../src/domain/api-key.js';
import { newId } from '../../src/domain/ids.js';
import { utcDay } from '../../src/domain/utc-day.js';
import { bearer, createTestApp, type TestApp, buildTestApp } from '../support/app.js';
import { insertInsight } from '../support/fixtures.js';

let t: TestApp;
let key: string;
const scores = new Map<string, number>();

beforeAll(async () => {
  t = await createTestApp();
  key = await t.key('enterprise');
  const categories = ['computers-electronics', 'finance', 'health'] as const;
  const sources = ['research', 'discovery'] as const;
  for (let i = 0; i < 45; i += 1) {
    const score = Math.round((((i * 37) % 100) / 100) * 1000) / 1000;
    const id = await insertInsight(t.database.db, {
      score,
      category: categories[i % 3],
      source: sources[i % 2],
      createdAt: new Date(Date.UTC(2026, 0, 1) + i * 3_600_000),
    });
    scores.set(id, score);
  }
});
afterAll(() => t.close());

const get = (url: string, headers: Record<string, string> = bearer(key)) => t.app.inject({ method: 'GET', url, headers });

async function walk(
  url: string,
): Promise<Array<{ id: string; overall_score: number; created_at: string; category: string; source: string; partial: boolean }>> {
  const seen = [];
  let next: string | null = null;
  do {
    const res = await get(`${url}${url.includes('?') ? '&' : '?'}${next ? `cursor=${next}` : ''}`);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    seen.push(...body.data);
    next = body.next_cursor;
  } while (next);
  return seen;
}

describe('GET /api/insights', () => {
  it('defaults to 20, sorted by score high first, with a cursor', async () => {
    const res = await get('/api/insights');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.data).toHaveLength(20);
    expect(body.next_cursor).toEqual(expect.any(String));
    const got = body.data.map((d: { overall_score: number }) => d.overall_score);
    expect(got).toEqual([...got].sort((a: number, b: number) => b - a));
  });

  it('lists each dimension score, with the evidence left to the insight itself', async () => {
    const item = (await get('/api/insights?limit=1')).json().data[0];
    expect(item.dimensions).toBeUndefined();
    const full = (await get(`/api/insights/${item.id}`)).json();
    expect(item.dimension_scores).toEqual(
      Object.fromEntries(Object.entries(full.dimensions).map(([name, d]) => [name, (d as { score: number | null }).score])),
    );
    expect(Object.keys(item.dimension_scores)).toHaveLength(8);
  });

  it('walks every page exactly once, for every sort', async () => {
    for (const sort of ['score', 'newest', 'oldest']) {
      const rows = await walk(`/api/insights?limit=7&sort=${sort}`);
      expect(rows).toHaveLength(45);
      expect(new Set(rows.map((r) => r.id)).size).toBe(45);
      if (sort === 'newest')
        expect(rows.map((r) => r.created_at)).toEqual(
          rows
            .map((r) => r.created_at)
            .sort()
            .reverse(),
        );
      if (sort === 'oldest') expect(rows.map((r) => r.created_at)).toEqual(rows.map((r) => r.created_at).sort());
    }
  });

  it('keeps created_at to the millisecond a cursor carries: rows of one millisecond page exactly once, newest and oldest', async () => {
    // Postgres kept microseconds: 48 demo rows of one insert shared 14:41:51.527376, and sort=oldest served one page for ever.
    const { count } = await sql<{ count: number }>`select count(*)::int as count from insights
      where created_at <> date_trunc('milliseconds', created_at)`
      .execute(t.database.db)
      .then((r) => r.rows[0]!);
    expect(count).toBe(0);
    const ids = (await walk('/api/insights?limit=100&sort=newest')).map((r) => r.id);
    const before = await t.database.db.selectFrom('insights').select(['id', 'created_at']).execute();
    await sql`update insights set created_at = ${'2026-11-27T14:41:51.527Z'}::timestamptz where id in (${sql.join(ids.slice(0, 20))})`.execute(
      t.database.db,
    );
    for (const sort of ['newest', 'oldest']) {
      const rows = await walk(`/api/insights?limit=3&sort=${sort}`);
      expect(new Set(rows.map((r) => r.id)).size, sort).toBe(45);
      expect(rows).toHaveLength(45);
    }
    for (const row of before)
      await t.database.db.updateTable('insights').set({ created_at: row.created_at }).where('id', '=', row.id).execute();
  });

  it('orders sort=score by the rank key Postgres generates as the domain code defines it: live research, then complete insights first', async () => {
    const rows = await t.database.db
      .selectFrom('insights')
      .select(['rank_key', 'overall_score', 'confidence', 'dimension_scores', 'source', 'provider'])
      .execute();
    for (const r of rows) expect(r.rank_key).toBeCloseTo(rankKeyOf(r, r.overall_score, r.confidence, r.dimension_scores), 12);
    const listed = await walk('/api/insights?limit=100&sort=score');
    const firstPartial = listed.findIndex((r) => r.partial);
    if (firstPartial >= 0) expect(listed.slice(firstPartial).every((r) => r.partial)).toBe(true);
  });

  it('filters by min_score, source and one or several categories', async () => {
    const high = await walk('/api/insights?min_score=0.5&limit=100');
    expect(high.length).toBe([...scores.values()].filter((s) => s >= 0.5).length);
    expect(high.every((r) => r.overall_score >= 0.5)).toBe(true);

    const discovery = await walk('/api/insights?source=discovery');
    expect(discovery.length).toBe(22);
    expect(discovery.every((r) => r.source === 'discovery')).toBe(true);

    const one = await walk('/api/insights?category=finance');
    expect(one.length).toBe(15);
    const two = await walk('/api/insights?category=finance,health&sort=newest&limit=4');
    expect(two.length).toBe(30);
    expect(new Set(two.map((r) => r.category))).toEqual(new Set(['finance', 'health']));

    const combined = await walk('/api/insights?category=computers-electronics&source=research&min_score=0.3');
    expect(combined.every((r) => r.category === 'computers-electronics' && r.source === 'research' && r.overall_score >= 0.3)).toBe(true);
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=abc', 'limit'],
    ['limit=2.5', 'limit'],
    ['min_score=1.5', 'min_score'],
    ['min_score=-0.1', 'min_score'],
    ['min_score=high', 'min_score'],
    ['sort=random', 'sort'],
    ['source=twitter', 'source'],
    ['category=finance,spaceships', 'category'],
    ['cursor=garbage!', 'cursor'],
    ['limt=5', 'limt'],
  ])('rejects %s with a 400 problem naming %s', async (query, name) => {
    const res = await get(`/api/insights?${query}`);
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    const body = res.json();
    expect(body).toMatchObject({ type: '/problems/invalid-parameter', status: 400 });
    expect(body.invalid_params.map((p: { name: string }) => p.name)).toContain(name);
    expect(body.detail).toContain(name);
  });

  it('lists the allowed values for enumerated parameters', async () => {
    const sort = (await get('/api/insights?sort=random')).json();
    expect(sort.invalid_params[0].allowed).toEqual(['score', 'overall', 'newest', 'oldest', ...DIMENSIONS]);
    const source = (await get('/api/insights?source=x')).json();
    expect(source.invalid_params[0].allowed).toEqual(SOURCE_VALUES);
    const category = (await get('/api/insights?category=x')).json();
    expect(category.invalid_params[0].allowed).toEqual(CATEGORY_VALUES);
  });

  it('rejects a cursor made for another sort', async () => {
    const { next_cursor } = (await get('/api/insights?sort=score&limit=2')).json();
    const res = await get(`/api/insights?sort=newest&cursor=${next_cursor}`);
    expect(res.statusCode).toBe(400);
    expect(res.json().detail).toMatch(/sort=score/);
  });
});

describe('single insight and its trend data', () => {
  it('returns the insight with its 8 dimensions and links', async () => {
    const [id] = scores.keys();
    const res = await get(`/api/insights/${id}`);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.id).toBe(id);
    expect(Object.keys(body.dimensions)).toHaveLength(8);
    expect(body.links.trend_data).toBe(`/api/insights/${id}/trend-data`);
  });

  it('returns the 30 most recent points, oldest first', async () => {
    const [id] = scores.keys();
    await t.database.db
      .insertInto('trend_points')
      .values(
        Array.from({ length: 35 }, (_, i) => ({
          insight_id: id!,
          date: new Date(Date.UTC(2026, 9, 1 + i)).toISOString().slice(0, 10),
          value: i,
          is_partial: i === 34,
          fetched_at: new Date(),
        })),
      )
      .execute();
    await bumpReadModelVersion(t.redis.redis, t.redis.keys);
    const res = await get(`/api/insights/${id}/trend-data`);
    expect(res.statusCode).toBe(200);
    const { data } = res.json();
    expect(data).toHaveLength(30);
    expect(data[0]).toMatchObject({ date: '2026-10-06', value: 5, is_partial: false });
    expect(data[29]).toMatchObject({ date: '2026-11-04', value: 34, is_partial: true });
  });

  it('answers 404 problems for unknown ids and routes, 405 for other methods', async () => {
    for (const url of [`/api/insights/${newId('insight')}`, '/api/insights/nope', `/api/insights/${newId('insight')}/trend-data`]) {
      const res = await get(url);
      expect(res.statusCode).toBe(404);
      expect(res.headers['content-type']).toMatch(/problem\+json/);
    }
    expect((await get('/api/nothing-here')).statusCode).toBe(404);
    const post = await t.app.inject({ method: 'DELETE', url: '/api/insights', headers: bearer(key) });
    expect(post.statusCode).toBe(405);
    expect(post.headers.allow).toBe('GET, HEAD');
    expect(post.json().type).toBe('/problems/method-not-allowed');
  });
});

describe('authentication', () => {
  it('needs a Bearer key', async () => {
    const res = await get('/api/insights', {});
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
    expect(res.headers['content-type']).toMatch(/problem\+json/);
    for (const header of ['Basic abc', 'Bearer', `Bearer ${generateApiKey()}`, 'Bearer sik_tooshort', `Bearer ${key}x`]) {
      const r = await get('/api/insights', { authorization: header });
      expect(r.statusCode, header).toBe(401);
      expect(r.headers['www-authenticate']).toMatch(/^Bearer/);
    }
  });

  it('refuses a revoked key at once, through the revocation message', async () => {
    const created = await createApiKey(t.database.db, 'to revoke', 'free');
    // Subscribe this app's key cache as the web process does.
    const { createRedis } = await import('../../src/redis/connection.js');
    const subscriber = createRedis(t.redis.url, 'worker');
    const { ApiKeyCache } = await import('../../src/api-keys/api-key-cache.js');
    const cache = new ApiKeyCache(t.database.db);
    const stop = await cache.listen(subscriber, t.redis.keys.apiKeyChangesChannel);
    const app = await buildTestApp(
      { database: t.database, redis: t.redis, overrides: { apiKeys: cache } },
      { overloadMaxEventLoopDelayMs: 0 },
    );
    const call = () => app.inject({ method: 'GET', url: '/api/usage', headers: bearer(created.key) });
    expect((await call()).statusCode).toBe(200); // now cached as valid
    await revokeApiKey(t.database.db, created.id);
    await announceKeyChange(t.redis.redis, t.redis.keys.apiKeyChangesChannel, created.id);
    await expect.poll(async () => (await call()).statusCode, { timeout: 2000 }).toBe(401);
    await stop();
    subscriber.disconnect();
    await app.close();
  });
});

describe('caching', () => {
  it('serves an ETag and answers If-None-Match with 304', async () => {
    const first = await get('/api/insights?limit=3');
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^".+"$/);
    const again = await t.app.inject({ method: 'GET', url: '/api/insights?limit=3', headers: { ...bearer(key), 'if-none-match': etag } });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    expect(again.headers.etag).toBe(etag);
  });

  it('shows a write as soon as the pipeline bumps the read-model version', async () => {
    const before = (await get('/api/insights?limit=1')).json().data[0];
    const top = await insertInsight(t.database.db, { score: 1 });
    // Not yet announced: the cached page is still served.
    expect((await get('/api/insights?limit=1')).json().data[0].id).toBe(before.id);
    await bumpReadModelVersion(t.redis.redis, t.redis.keys);
    // A limited plan asks Redis for the version on every request: fresh at once.
    expect((await get('/api/insights?limit=1', bearer(await t.key('pro')))).json().data[0].id).toBe(top);
    // Unlimited plans use the version the web process heard announced (pub/sub, milliseconds).
    await expect.poll(async () => (await get('/api/insights?limit=1')).json().data[0].id, { timeout: 2000, interval: 5 }).toBe(top);
    await t.database.db.deleteFrom('insights').where('id', '=', top).execute();
    await bumpReadModelVersion(t.redis.redis, t.redis.keys);
    await expect.poll(async () => (await get('/api/insights?limit=1')).json().data[0].id, { timeout: 2000, interval: 5 }).toBe(before.id);
  });

  it('keeps versions growing when Redis loses the version (restart without persistence)', async () => {
    await bumpReadModelVersion(t.redis.redis, t.redis.keys);
    const before = Number(await t.redis.redis.get(t.redis.keys.readModelVersion));
    await t.redis.redis.del(t.redis.keys.readModelVersion);
    await bumpReadModelVersion(t.redis.redis, t.redis.keys);
    const after = Number(await t.redis.redis.get(t.redis.keys.readModelVersion));
    expect(after).toBeGreaterThan(before); // recreated from the clock, not restarted at 1
    await expect.poll(() => t.readModel.current(), { timeout: 2000 }).toBe(String(after));
  });

  it('counts unlimited-plan requests served without a Redis round trip, and asks Redis while out of sync', async () => {
    const { key: enterprise, accountId } = await createApiKey(t.database.db, 'unlimited counts', 'enterprise');
    expect(t.readModel.current()).toBeDefined();
    for (let i = 0; i < 5; i += 1) expect((await get('/api/insights?limit=2', bearer(enterprise))).statusCode).toBe(200);
    // The counts were sent without waiting (the first one seeds today's counter from Postgres
    // first): wait until Redis holds all five, then /api/usage (which always asks Redis) sees
    // them and itself.
    const counted = t.redis.keys.quota(accountId, utcDay(new Date()));
    await expect.poll(async () => Number(await t.redis.redis.get(counted)), { timeout: 10_000 }).toBe(5);
    const usage = (await get('/api/usage', bearer(enterprise))).json().data;
    expect(usage).toMatchObject({ plan: 'enterprise', limit: null, used: 6, remaining: null });

    // Out of sync (its subscription is gone): every request asks Redis, so a bump is seen at once.
    const subscriber = createRedis(t.redis.url, 'worker');
    const watcher = new ReadModelVersionWatcher(t.redis.redis, t.redis.keys);
    const stop = await watcher.listen(subscriber);
    const app = await buildTestApp(
      { database: t.database, redis: t.redis, overrides: { readModel: watcher } },
      { overloadMaxEventLoopDelayMs: 0 }, // as in createTestApp: shedding has its own test
    );
    const call = async () => {
      const res = await app.inject({ method: 'GET', url: '/api/insights?limit=1', headers: bearer(enterprise) });
      expect(res.statusCode, res.body).toBe(200);
      return res.json().data[0].id;
    };
    const before = await call();
    subscriber.disconnect();
    await expect.poll(() => watcher.current()).toBeUndefined();
    const top = await insertInsight(t.database.db, { score: 1 });
    await bumpReadModelVersion(t.redis.redis, t.redis.keys);
    expect(await call()).toBe(top);
    await t.database.db.deleteFrom('insights').where('id', '=', top).execute();
    await bumpReadModelVersion(t.redis.redis, t.redis.keys);
    expect(await call()).toBe(before);
    await app.close();
    await stop();
  });
});

describe('catalog, usage, health and docs', () => {
  it('lists categories and sources with counts', async () => {
    const categories = (await get('/api/categories')).json().data;
    expect(categories.map((c: { id: string }) => c.id)).toEqual(CATEGORY_VALUES);
    expect(categories.find((c: { id: string }) => c.id === 'finance').insights).toBe(15);
    const sources = (await get('/api/sources')).json().data;
    expect(sources.map((s: { id: string }) => s.id)).toEqual(SOURCE_VALUES);
  });

  it('reports usage for the calling key', async () => {
    const free = await t.key('free');
    await get('/api/insights', bearer(free));
    const usage = await get('/api/usage', bearer(free));
    expect(usage.json().data).toMatchObject({ plan: 'free', limit: 100, used: 2, remaining: 98 });
    expect(usage.headers['ratelimit-policy']).toBe('"free";q=100;w=86400');
    expect(usage.headers.ratelimit).toMatch(/^"free";r=98;t=\d+$/);
  });

  it('is healthy and ready, and publishes OpenAPI 3.1 with every route', async () => {
    expect((await get('/healthz', {})).json()).toEqual({ status: 'ok' });
    const ready = await get('/readyz', {});
    expect(ready.statusCode).toBe(200);
    expect(ready.json().checks).toEqual({ postgres: { ok: true }, redis: { ok: true } });
    const spec = (await get('/openapi.json', {})).json();
    expect(spec.openapi).toBe('3.1.0');
    for (const path of [
      '/api/insights',
      '/api/insights/{id}',
      '/api/insights/{id}/trend-data',
      '/api/categories',
      '/api/sources',
      '/api/usage',
    ]) {
      expect(spec.paths[path]?.get?.responses?.['200'], path).toBeDefined();
    }
    const docs = await get('/docs', {});
    expect([200, 302]).toContain(docs.statusCode);
  });
});
