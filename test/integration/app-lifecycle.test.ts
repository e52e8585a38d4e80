// buildApp starts nothing that outlives the app: the response cache's /metrics
// figures belong to the app that is serving, an app that was built but never
// served reports nothing, and a closed app stops reporting.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registry } from '../../src/observability/metrics.js';
import { bearer, createTestApp, type TestApp, buildTestApp } from '../support/app.js';

const cacheBytes = async () => Number(/^api_response_cache_bytes (\d+)/m.exec(await registry.metrics())![1]);

describe("the app's lifetime", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('reports its response cache while it serves, and nothing once it is closed; a second app built alongside changes neither', async () => {
    const key = await t.key();
    const res = await t.app.inject({ url: '/api/categories', headers: bearer(key) });
    expect(res.statusCode).toBe(200);
    const serving = await cacheBytes();
    expect(serving).toBeGreaterThan(0);

    // Built, never made ready, closed: it must not take over or end the first app's report.
    const idle = await buildTestApp({ database: t.database, redis: t.redis }, { overloadMaxEventLoopDelayMs: 0 });
    expect(await cacheBytes()).toBe(serving);
    await idle.close();
    expect(await cacheBytes()).toBe(serving);

    await t.app.close();
    expect(await cacheBytes()).toBe(0);
  });
});
