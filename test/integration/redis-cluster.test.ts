// The service on a real Redis Cluster (3 masters on loopback, Debian's
// redis-server): research runs through the queues, exact quotas, read-model
// versions, revocation within a second and webhook delivery; the key layout
// spreads over the shards; and a master killed mid-run fails over to its
// replica without losing an enqueue.
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalRedisCluster } from '../../scripts/lib/local-redis-cluster.js';
import { PageLimiter } from '../../src/members/page-limiter.js';
import { SIGN_IN_LIMITS, SignInLimiter } from '../../src/members/sign-in-limiter.js';
import { announceKeyChange, ApiKeyCache } from '../../src/api-keys/api-key-cache.js';
import { createApiKey, revokeApiKey } from '../../src/api-keys/api-key.repository.js';
import { loadConfig } from '../../src/config.js';
import { buildApp } from '../../src/http/app.js';
import { buildServices } from '../../src/runtime/services.js';
import { QUEUES } from '../../src/queue/queue-names.js';
import { createRedis, waitForRedis } from '../../src/redis/connection.js';
import { redisKeys } from '../../src/redis/keys.js';
import { ReadModelVersionWatcher } from '../../src/redis/read-model-version.js';
import { StepQueue } from '../../src/research/step-queue.js';
import { startRun } from '../../src/research/start-run.js';
import type { Resources } from '../../src/runtime/resources.js';
import type { Pipeline } from '../../src/runtime/workers.js';
import { startTestWorkers } from '../support/services.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { until, within } from '../support/pipeline.js';

async function clusterResources(cluster: LocalRedisCluster, database: TestDatabase, prefix: string): Promise<Resources> {
  const target = { cluster: cluster.seeds };
  const redis = createRedis(target, 'client');
  await waitForRedis(redis, target, 30_000);
  return {
    db: database.db,
    databaseUrl: database.url,
    embeddedPostgres: false,
    redis,
    redisTarget: target,
    redisKeys: redisKeys(prefix),
    connectRedis: (role) => createRedis(target, role),
    close: async () => redis.disconnect(),
  };
}

// A job lost in a failover comes back with the sweep (every 15 s, for runs quiet 30 s), then runs its remaining steps.
const allDone = (database: TestDatabase, count: number) =>
  until(
    () => database.db.selectFrom('research_runs').select('status').execute(),
    (rows) => rows.length === count && rows.every((r) => r.status === 'succeeded' || r.status === 'failed'),
    180_000,
    'every run to finish',
  );

async function expectFortyStepsEach(database: TestDatabase) {
  const { rows } = await sql<{
    n: number;
    steps: number;
  }>`select count(*)::int as n, count(distinct step)::int as steps from research_steps where status = 'done' group by run_id`.execute(
    database.db,
  );
  for (const r of rows) expect([r.n, r.steps]).toEqual([40, 40]);
  expect((await database.db.selectFrom('research_runs').select('status').execute()).every((r) => r.status === 'succeeded')).toBe(true);
}

describe('on a 3-master Redis Cluster', () => {
  let cluster: LocalRedisCluster;
  let database: TestDatabase;
  let resources: Resources;
  let pipeline: Pipeline;
  const prefix = `c${randomBytes(3).toString('hex')}`;
  const encryptionKey = randomBytes(32);

  beforeAll(async () => {
    cluster = await LocalRedisCluster.start(3, 0);
    // A database and a Redis Cluster, not the stack's single Redis: its set-up is its own.
    database = await createTestDatabase();
    resources = await clusterResources(cluster, database, prefix);
    pipeline = await startTestWorkers(
      resources,
      {
        ...loadConfig({
          REDIS_PREFIX: prefix,
          TRENDS_PROVIDER: 'synthetic',
          WEBHOOK_ALLOW_PRIVATE: 'true',
          WEBHOOK_ENCRYPTION_KEY: encryptionKey.toString('base64'),
          WEBHOOK_RETRY_SCALE: '0.0002',
        }),
      },
      pino({ level: 'silent' }),
    );
  }, 120_000);
  afterAll(async () => {
    await pipeline?.close();
    await resources?.close();
    await database?.destroy();
    await cluster?.stop();
  });

  it('spreads the queues and the quota counters over the shards', async () => {
    const keys = redisKeys(prefix);
    const masters = new Set(await Promise.all(Object.values(QUEUES).map((q) => cluster.masterOf(`${keys.queuePrefix(q)}:${q}:wait`))));
    expect(masters.size).toBeGreaterThanOrEqual(2);
    const quotaMasters = new Set(
      await Promise.all(Array.from({ length: 12 }, (_, i) => cluster.masterOf(keys.quota(`acc_${i}`, '2026-11-23')))),
    );
    expect(quotaMasters.size).toBe(3);
    // One account's counter and its per-key shares share a hash tag, so one script updates both.
    for (let i = 0; i < 12; i++) {
      expect(await cluster.masterOf(keys.quotaKeys(`acc_${i}`, '2026-11-23'))).toBe(
        await cluster.masterOf(keys.quota(`acc_${i}`, '2026-11-23')),
      );
    }
  });

  it('counts sign-in attempts and account pages with their scripts (every key of each in one slot)', async () => {
    const keys = redisKeys(prefix);
    const signIn = new SignInLimiter(resources.redis, { email: keys.signInEmail, client: keys.signInClient, account: keys.signInAccount });
    for (let i = 0; i < SIGN_IN_LIMITS.attemptsPerEmail; i++) expect(await signIn.reserve('e1', '10.0.0.1', 'acc_1')).toBeNull();
    expect((await signIn.reserve('e1', '10.0.0.2', 'acc_1'))?.retryAfterSeconds).toBeGreaterThan(0);
    await signIn.succeeded('e1', 'acc_1');
    expect(await resources.redis.get(keys.signInAccount('acc_1'))).toBe(String(SIGN_IN_LIMITS.attemptsPerEmail - 1));
    const pages = new PageLimiter(resources.redis, keys.pageRequests, { perSessionPerMinute: 2, perAccountPerMinute: 10 });
    expect(await pages.take('s1', 'acc_1')).toBeNull();
    expect(await pages.take('s1', 'acc_1')).toBeNull();
    expect((await pages.take('s1', 'acc_1'))?.retryAfterSeconds).toBeGreaterThan(0);
  });

  it('runs research and delivers its webhooks', async () => {
    const received: string[] = [];
    const receiver = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        received.push(String(req.headers['webhook-id']));
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    const { createSubscription } = await import('../../src/webhooks/subscription.repository.js');
    const { SecretBox } = await import('../../src/webhooks/secret-box.js');
    await createSubscription(database.db, new SecretBox(encryptionKey), {
      url: `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`,
      minScore: null,
      categories: [],
      sources: [],
      keywords: [],
      eventTypes: ['insight.created'],
    });
    const stepQueue = new StepQueue(pipeline.queues.research);
    for (let i = 0; i < 4; i += 1)
      await startRun(database.db, stepQueue, {
        idea: `Cluster idea ${i} for tiny homes`,
        hints: [],
        provider: 'synthetic',
        source: 'synthetic',
      });
    await allDone(database, 4);
    await expectFortyStepsEach(database);
    await until(
      async () => new Set(received).size,
      (n) => n === 4,
      60_000,
      'four deliveries',
    );
    receiver.closeAllConnections();
    receiver.close();
  }, 180_000);

  it('grants a Free key exactly 100 of 200 concurrent requests, sees writes at once, and revokes within a second', async () => {
    const apiKeys = new ApiKeyCache(database.db);
    const readModel = new ReadModelVersionWatcher(resources.redis, resources.redisKeys);
    const subscriber = resources.connectRedis('worker');
    const stopRevocations = await apiKeys.listen(subscriber, resources.redisKeys.apiKeyChangesChannel);
    const stopVersions = await readModel.listen(subscriber);
    const services = buildServices(
      resources,
      loadConfig({ REDIS_PREFIX: prefix, TRENDS_PROVIDER: 'synthetic' }),
      pino({ level: 'silent' }),
      {
        apiKeys,
        readModel,
      },
    );
    const app = await buildApp({ services, overloadMaxEventLoopDelayMs: 0 });
    app.addHook('onClose', async () => services.close());
    try {
      const free = await createApiKey(database.db, 'cluster free', 'free');
      const statuses = await Promise.all(
        Array.from({ length: 200 }, () =>
          app.inject({ url: '/api/sources', headers: { authorization: `Bearer ${free.key}` } }).then((r) => r.statusCode),
        ),
      );
      expect(statuses.filter((s) => s === 200)).toHaveLength(100);
      expect(statuses.filter((s) => s === 429)).toHaveLength(100);

      const pro = await createApiKey(database.db, 'cluster pro', 'pro');
      const list = () =>
        app
          .inject({ url: '/api/insights?limit=100', headers: { authorization: `Bearer ${pro.key}` } })
          .then((r) => r.json().data.length as number);
      const before = await list();
      await startRun(database.db, new StepQueue(pipeline.queues.research), {
        idea: 'Cluster idea after the cache',
        hints: [],
        provider: 'synthetic',
        source: 'synthetic',
      });
      await allDone(database, 5);
      expect(await list()).toBe(before + 1); // the version bump reached the cache

      await revokeApiKey(database.db, pro.id);
      const revokedAt = Date.now();
      await announceKeyChange(resources.redis, resources.redisKeys.apiKeyChangesChannel, pro.id);
      await until(
        () => app.inject({ url: '/api/sources', headers: { authorization: `Bearer ${pro.key}` } }).then((r) => r.statusCode),
        (s) => s === 401,
        5_000,
        'the revoked key to be refused',
      );
      expect(Date.now() - revokedAt).toBeLessThan(1_000);
    } finally {
      await app.close();
      await stopVersions();
      await stopRevocations();
      subscriber.disconnect();
    }
  }, 180_000);
});

describe('a Redis Cluster failover (3 masters, 3 replicas)', () => {
  // Every phase has its own deadline, and their sum stays under the test's, so a run that does not
  // finish fails with the state of its jobs instead of a bare vitest timeout (as CI saw once, 2026-11-28).
  it('finishes every run when the master holding the research queue is killed mid-way', async () => {
    const cluster = await within(LocalRedisCluster.start(3, 1), 60_000, 'starting the cluster');
    // A database and a Redis Cluster, not the stack's single Redis: its set-up is its own.
    const database = await createTestDatabase();
    const prefix = `f${randomBytes(3).toString('hex')}`;
    const resources = await within(clusterResources(cluster, database, prefix), 40_000, 'connecting to the cluster');
    // As a worker process runs: with the job schedulers, so the sweep brings back a job the failover lost.
    const pipeline = await within(
      startTestWorkers(
        resources,
        loadConfig({ REDIS_PREFIX: prefix, TRENDS_PROVIDER: 'synthetic', SYNTHETIC_LATENCY_MS: '50', JOB_LOCK_MS: '5000' }),
        pino({ level: 'silent' }),
        { keepSchedulers: true },
      ),
      30_000,
      'starting the workers',
    );
    try {
      const stepQueue = new StepQueue(pipeline.queues.research);
      for (let i = 0; i < 10; i += 1)
        await startRun(database.db, stepQueue, {
          idea: `Failover idea ${i} for vans`,
          hints: [],
          provider: 'synthetic',
          source: 'synthetic',
        });
      const steps = async () =>
        (await sql<{ n: number }>`select count(*)::int as n from research_steps where status = 'done'`.execute(database.db)).rows[0]!.n;
      await until(steps, (n) => n >= 60, 60_000, 'the runs to be under way');
      const master = await within(
        cluster.masterOf(`${redisKeys(prefix).queuePrefix(QUEUES.research)}:${QUEUES.research}:wait`),
        15_000,
        'finding the master',
      );
      await cluster.crash(master);
      expect(await steps()).toBeLessThan(400); // really mid-way
      await cluster.waitUntilHealthy(60_000); // a replica took over
      try {
        await allDone(database, 10);
      } catch (error) {
        const stuck = await database.db
          .selectFrom('research_runs')
          .select(['id', 'next_step', 'status', 'updated_at'])
          .where('status', '<>', 'succeeded')
          .execute();
        const diagnose = async () => {
          const states = await Promise.all(
            stuck.map(async (r) => {
              const job = await pipeline.queues.research.getJob(`${r.id}-step-${r.next_step}`);
              return { ...r, job: job ? await job.getState() : 'missing' };
            }),
          );
          const schedulers = await pipeline.queues.maintenance.getJobSchedulers();
          const sweeps = await pipeline.queues.maintenance.getJobCounts();
          return JSON.stringify({ states, schedulers, sweeps });
        };
        const found = await within(diagnose(), 15_000, 'reading the stuck jobs from Redis').catch(
          (e: Error) => `${e.message}: ${JSON.stringify(stuck)}`,
        );
        throw new Error(`${(error as Error).message}\n${found}`);
      }
      await expectFortyStepsEach(database);
    } finally {
      await within(pipeline.close(), 20_000, 'closing the workers').catch(() => {});
      await resources.close();
      await database.destroy();
      await cluster.stop();
    }
  }, 480_000);
});
