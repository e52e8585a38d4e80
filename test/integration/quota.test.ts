// Quotas over real loopback HTTP, with truly concurrent connections.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../support/pipeline.js';
import { createTestApp, type TestApp } from '../support/app.js';

let t: TestApp;
let base: string;

beforeAll(async () => {
  t = await createTestApp();
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  const address = t.app.server.address();
  base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});
afterAll(() => t.close());

async function burst(key: string, n: number, path = '/api/insights?limit=1') {
  return Promise.all(
    Array.from({ length: n }, () =>
      fetch(`${base}${path}`, { headers: { authorization: `Bearer ${key}` } }).then(async (res) => ({
        status: res.status,
        headers: res.headers,
        body: await res.text(),
      })),
    ),
  );
}

describe('daily quotas', () => {
  it('gives a fresh Free key exactly 100 successes out of 200 concurrent requests', async () => {
    const key = await t.key('free');
    const results = await burst(key, 200);
    const ok = results.filter((r) => r.status === 200);
    const refused = results.filter((r) => r.status === 429);
    expect(ok).toHaveLength(100);
    expect(refused).toHaveLength(100);

    for (const r of refused) {
      expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(JSON.parse(r.body)).toMatchObject({ type: '/problems/quota-exceeded', status: 429 });
      const retryAfter = Number(r.headers.get('retry-after'));
      const expected = Math.ceil(
        (Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate() + 1) - Date.now()) / 1000,
      );
      expect(retryAfter).toBeGreaterThan(0);
      expect(Math.abs(retryAfter - expected)).toBeLessThanOrEqual(5);
      expect(r.headers.get('ratelimit')).toMatch(/^"free";r=0;t=\d+$/);
    }
    const remaining = ok.map((r) => Number(/r=(\d+)/.exec(r.headers.get('ratelimit') ?? '')?.[1])).sort((a, b) => a - b);
    expect(remaining).toEqual(Array.from({ length: 100 }, (_, i) => i));
    for (const r of ok) expect(r.headers.get('ratelimit-policy')).toBe('"free";q=100;w=86400');

    // /api/usage still answers (it is how a client learns when the quota resets), uncounted:
    // refused requests were not counted either, so usage stays at the limit.
    const usage = await burst(key, 2, '/api/usage');
    for (const answer of usage) {
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.body).data).toMatchObject({ limit: 100, used: 100, remaining: 0 });
      expect(answer.headers.get('ratelimit')).toMatch(/^"free";r=0;t=\d+$/);
    }
    expect((await burst(key, 1, '/api/categories'))[0]!.status).toBe(429);
  });

  it('holds Starter at 1,000 per day', async () => {
    const key = await t.key('starter');
    const statuses = [];
    for (let i = 0; i < 5; i += 1) statuses.push(...(await burst(key, 220)).map((r) => r.status));
    expect(statuses.filter((s) => s === 200)).toHaveLength(1000);
    expect(statuses.filter((s) => s === 429)).toHaveLength(100);
  });

  it('never refuses Enterprise, but counts it for /api/usage', async () => {
    const key = await t.key('enterprise');
    const results = await burst(key, 150);
    expect(results.every((r) => r.status === 200)).toBe(true);
    // An unlimited plan's counts are sent without waiting: asked until they have landed (each ask counts itself too).
    let asks = 0;
    const data = await until(
      async () => {
        asks += 1;
        const [usage] = await burst(key, 1, '/api/usage');
        return JSON.parse(usage!.body).data as { plan: string; limit: null; used: number; remaining: null };
      },
      (d) => d.used === 150 + asks,
      10_000,
      'the 150 requests counted',
    );
    expect(data).toMatchObject({ plan: 'enterprise', limit: null, remaining: null });
  });

  it('counts each key separately', async () => {
    const a = await t.key('free');
    const b = await t.key('free');
    await burst(a, 100);
    expect((await burst(b, 1))[0]!.status).toBe(200);
    expect((await burst(a, 1))[0]!.status).toBe(429);
  });
});
