// The scheduled Google canary (the `google-check` job on the maintenance
// queue) run by a real worker against the loopback Google, inside the egress
// pool every job shares: it keeps its result for `insights budget` and
// /metrics, tells the pool of a block it meets (so the next job waits rather
// than follow it in), and when the route is not free it asks nothing, keeps
// the last result and raises no alarm.
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGoogleOnLoopback, type GoogleOnLoopback } from '../../scripts/lib/google-on-loopback/index.js';
import { ServiceProcess } from '../../scripts/lib/service-process.js';
import { QUEUES } from '../../src/queue/queue-names.js';
import { createRedis } from '../../src/redis/connection.js';
import { routesFrom } from '../../src/providers/google/egress/routes.js';
import { EgressPool } from '../../src/providers/google/egress/egress-pool.js';
import { runCli } from '../support/cli.js';
import { until } from '../support/pipeline.js';
import type { TestRedis } from '../support/redis.js';
import { createTestStack, type TestStack } from '../support/stack.js';
import { enqueue } from '../../src/queue/enqueue.js';
import { JOB } from '../../src/queue/job-catalogue.js';

let g: GoogleOnLoopback;
let redis: TestRedis;
let stack: TestStack;
let worker: ServiceProcess;
let queue: Queue;
let env: Record<string, string>;
const warnings: string[] = [];
beforeAll(async () => {
  g = await startGoogleOnLoopback({ proxies: 1, requestsPerMinute: 0, embedMinGapMs: 0 });
  stack = await createTestStack();
  redis = stack.redis;
  env = {
    ...stack.env,
    ...g.env,
    TRENDS_PROVIDER: 'google',
    TRENDS_REQUESTS_PER_MINUTE: '0',
    TRENDS_EMBED_GAP_MS: '0',
  };
  worker = new ServiceProcess('worker', env, {
    onLine: (line) => (/"level":40/.test(line) && /canary/.test(line) ? warnings.push(line) : undefined),
  });
  await worker.ready;
  queue = new Queue(QUEUES.maintenance, {
    connection: createRedis(redis.url, 'worker'),
    prefix: redis.keys.queuePrefix(QUEUES.maintenance),
  });
});
afterAll(async () => {
  await worker.kill('SIGTERM');
  await queue.close();
  await stack?.close();
  await g.stop();
});

const pool = () =>
  new EgressPool(redis.redis, redis.keys.trendsPool, routesFrom(g.env.TRENDS_PROXY_URLS!.split(',')), {
    requestsPerMinute: 0,
    cooldownMs: 600_000,
    cooldownMaxMs: 3_600_000,
    refusedPauseMs: 600_000,
    requestTimeoutMs: 20_000,
  });
async function runCanary(): Promise<Record<string, unknown>> {
  const job = await enqueue(queue, JOB.googleCheck, {});
  await until(
    () => job.getState(),
    (s) => s === 'completed' || s === 'failed',
    60_000,
    'the canary to finish',
  );
  const done = await queue.getJob(job.id!);
  expect(done?.failedReason).toBeUndefined();
  return done!.returnvalue as Record<string, unknown>;
}

describe('the scheduled Google canary', () => {
  it("checks every kind inside the route's pace, keeps the result, and insights budget shows it", async () => {
    const result = await runCanary();
    expect(result).toMatchObject({ broken: [], userType: { explore: 'USER_TYPE_SCRAPER', embed: 'USER_TYPE_EMBED' } });
    const [route] = await pool().budget();
    expect(route).toMatchObject({ requests: 11, embedRequests: 1 }); // its requests (three roads to the trending searches among them) were paced, and counted, as the route's
    const budget = await runCli(['budget'], env);
    expect(budget.stdout).toMatch(
      /Canary \(.*\): every kind answered as expected; labelled USER_TYPE_SCRAPER \(explore\), USER_TYPE_EMBED \(embed\)/,
    );
    expect(warnings).toEqual([]);
  });

  it('tells the pool of a block it meets, with the wait Google asked for, and sends nothing more to the blocked family', async () => {
    g.google.blockFor(g.proxies[0]!.egressAddress, 'unusual-403', 20 * 60_000);
    const before = g.google.totalRequests();
    const result = (await runCanary()) as { broken: string[] };
    expect(result.broken).toContain('home_page');
    expect(g.google.totalRequests() - before).toBe(2); // the home page, and once the trending feed (a family of its own; blocked too here)
    const [route] = await pool().budget();
    expect(route).toMatchObject({ state: 'cooling', blocksByKind: { forbidden_403: 1 } });
    expect(route!.stateForMs).toBeGreaterThan(19 * 60_000); // Google's Retry-After (20 min), beyond the 10-minute first cooldown
    expect(warnings).toHaveLength(1); // a block is worth a warning
  });

  it('asks nothing while the route cools down: no alarm, and the last result stands', async () => {
    const kept = await pool().lastCheck();
    const before = g.google.totalRequests();
    const result = await runCanary();
    expect(result).toMatchObject({ skipped: expect.stringMatching(/cooling down after Google blocked it/) });
    expect(g.google.totalRequests()).toBe(before);
    expect(await pool().lastCheck()).toEqual(kept);
    expect(warnings).toHaveLength(1);
  });
});
