import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/api-keys/api-key.repository.js';
import { buildTestApp } from '../support/app.js';
import { StepQueue } from '../../src/research/step-queue.js';
import { startRun } from '../../src/research/start-run.js';
import type { Pipeline } from '../../src/runtime/workers.js';
import type { TestDatabase } from '../support/database.js';
import { until } from '../support/pipeline.js';
import { createTestStack, type TestStack } from '../support/stack.js';
import type { TestRedis } from '../support/redis.js';
import type { FastifyInstance } from 'fastify';

const TOKEN = 'admin-token-for-tests-0123456789';
let database: TestDatabase;
let redis: TestRedis;
let pipeline: Pipeline;
let app: FastifyInstance;

let stack: TestStack;
beforeAll(async () => {
  stack = await createTestStack({ workers: true });
  ({ database, redis } = stack);
  pipeline = stack.pipeline!;
  // The dashboard shows the services' own queues: the pipeline's, by name and prefix.
  app = await buildTestApp({ database, redis }, { adminToken: TOKEN, overloadMaxEventLoopDelayMs: 0 });
  await app.ready();
});
afterAll(async () => {
  await app.close();
  await stack.close();
});

const basic = (password: string) => ({ authorization: `Basic ${Buffer.from(`ops:${password}`).toString('base64')}` });

describe('/metrics', () => {
  it('needs the admin token', async () => {
    const res = await app.inject({ url: '/metrics' });
    expect(res.statusCode).toBe(401);
    expect(res.headers['content-type']).toMatch(/problem\+json/);
    // The admin token, not an API key (the outside review found the title speaking of API keys).
    expect(res.json()).toMatchObject({
      type: '/problems/admin-unauthorized',
      title: 'Missing or invalid admin token',
      detail: expect.stringMatching(/ADMIN_TOKEN/),
    });
    expect((await app.inject({ url: '/metrics', headers: { authorization: 'Bearer wrong-token-wrong-token' } })).statusCode).toBe(401);
  });

  it('reports HTTP, quota, job, queue and forecast metrics during a research run', async () => {
    const { key } = await createApiKey(database.db, 'metrics', 'free');
    for (let i = 0; i < 101; i += 1) await app.inject({ url: '/api/categories', headers: { authorization: `Bearer ${key}` } });
    const run = await startRun(database.db, new StepQueue(pipeline.queues.research), {
      idea: 'Metrics idea for coffee roasters',
      hints: [],
      provider: 'synthetic',
      source: 'synthetic',
    });
    const during = await app.inject({ url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
    expect(during.body).toMatch(/queue_jobs\{queue="research",state="(waiting|active|completed)"\}/);
    await until(
      () => database.db.selectFrom('research_runs').select('status').where('id', '=', run.id).executeTakeFirstOrThrow(),
      (r) => r.status === 'succeeded',
      60_000,
      'the run',
    );
    // The last job's "completed" event lands just after the run is recorded as done. A research-step job runs its
    // run's next steps itself for up to RESEARCH_GO_ON_MS (2026-11-29), so the 40 steps take between 1 and 40 jobs.
    const res = await until(
      () => app.inject({ url: '/metrics', headers: basic(TOKEN) }),
      (r) => Number(/job_duration_seconds_count\{queue="research",job="research-step"\} (\d+)/.exec(r.body)?.[1] ?? 0) >= 1,
      10_000,
      'research-step jobs in the metrics',
    );
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/plain/);
    const body = res.body;
    expect(body).toMatch(/http_request_duration_seconds_count\{method="GET",route="\/api\/categories",status="200"\} 100/);
    expect(body).toMatch(/http_request_duration_seconds_count\{method="GET",route="\/api\/categories",status="429"\} 1/);
    expect(body).toMatch(/api_quota_rejections_total\{plan="free"\} 1/);
    const steps = Number(/job_duration_seconds_count\{queue="research",job="research-step"\} (\d+)/.exec(body)?.[1]);
    expect(steps).toBeGreaterThanOrEqual(1);
    expect(steps).toBeLessThanOrEqual(40);
    expect(body).toMatch(/forecast_backtest_mase_count \d+/);
    expect(body).toMatch(/webhook_delivery_attempts_total|# HELP webhook_delivery_attempts_total/);
    expect(body).toMatch(/# HELP google_trends_requests_total/);
  }, 180_000);
});

describe('/admin/queues (Bull Board)', () => {
  it("a control character in the query is a 400 problem, not a 500 from Bull Board's error handler", async () => {
    for (const url of ['/admin/queues?x=%00', '/admin/queues/api/queues?x=%0D', '/admin/queues/static/x.js?%E2%80%AE=1']) {
      const res = await app.inject({ url, headers: basic(TOKEN) });
      expect(res.statusCode, `${url}: ${res.body}`).toBe(400);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    }
  });

  it('asks for credentials, then shows every queue and can remove a job', async () => {
    const denied = await app.inject({ url: '/admin/queues' });
    expect(denied.statusCode).toBe(401);
    expect(denied.json()).toMatchObject({ type: '/problems/admin-unauthorized', title: 'Missing or invalid admin token' });
    expect(denied.headers['www-authenticate']).toMatch(/^Basic/);
    const page = await app.inject({ url: '/admin/queues', headers: basic(TOKEN) });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    const api = await app.inject({ url: '/admin/queues/api/queues', headers: basic(TOKEN) });
    expect(api.statusCode).toBe(200);
    const names = (api.json().queues as Array<{ name: string }>).map((q) => q.name).sort();
    expect(names).toEqual(['ingest', 'maintenance', 'research', 'trends', 'webhooks']);

    const job = await pipeline.queues.maintenance.add('sweep', {}, { delay: 3_600_000, jobId: 'dashboard-remove-me' });
    const removed = await app.inject({ method: 'PUT', url: `/admin/queues/api/queues/maintenance/${job.id}/clean`, headers: basic(TOKEN) });
    expect(removed.statusCode).toBeLessThan(300);
    expect(await pipeline.queues.maintenance.getJob(job.id!)).toBeUndefined();

    // A job that fails for good (no handler has its name), retried from the dashboard.
    const broken = await pipeline.queues.maintenance.add('no-such-job', {}, { jobId: 'dashboard-retry-me', attempts: 1 });
    await until(
      () => broken.getState(),
      (s) => s === 'failed',
      60_000,
      'the job to fail',
    );
    const before = (await pipeline.queues.maintenance.getJob(broken.id!))!.processedOn;
    const retried = await app.inject({
      method: 'PUT',
      url: `/admin/queues/api/queues/maintenance/${broken.id}/retry`,
      headers: basic(TOKEN),
    });
    expect(retried.statusCode).toBeLessThan(300);
    await until(
      async () => (await pipeline.queues.maintenance.getJob(broken.id!))!.processedOn,
      (p) => p !== before,
      60_000,
      'the retried job to run again',
    );
  });
});
