// The official Trends API combined with Google (TRENDS_PROVIDER=trends-api,google), end to end: the real worker
// process asks the loopback Trends API for the series and the maps (searchInterest, no anchor term) and the
// loopback Google, through a CONNECT proxy, for what the API does not answer: topic autocomplete and the related
// lists. Issue 51 item 4: "combinable with google … (series from the official API, lists from Google)".
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGoogleOnLoopback, type GoogleOnLoopback } from '../../scripts/lib/google-on-loopback/index.js';
import { startTrendsApiOnLoopback, type TrendsApiOnLoopback } from '../../scripts/lib/trends-api-on-loopback/index.js';
import { ServiceProcess } from '../../scripts/lib/service-process.js';
import { DEFAULT_ANCHOR } from '../../src/providers/registry.js';
import { QUEUES } from '../../src/queue/queue-names.js';
import { createRedis } from '../../src/redis/connection.js';
import { StepQueue } from '../../src/research/step-queue.js';
import { startRun } from '../../src/research/start-run.js';
import { STEP_COUNT } from '../../src/research/step-contract.js';
import type { TestDatabase } from '../support/database.js';
import { until } from '../support/pipeline.js';
import type { TestRedis } from '../support/redis.js';
import { createTestStack, type TestStack } from '../support/stack.js';

let google: GoogleOnLoopback;
let api: TrendsApiOnLoopback;
let database: TestDatabase;
let redis: TestRedis;
let stack: TestStack;
let env: Record<string, string>;

beforeAll(async () => {
  google = await startGoogleOnLoopback({ proxies: 1, requestsPerMinute: 0, embedMinGapMs: 0 });
  api = await startTrendsApiOnLoopback();
  stack = await createTestStack();
  ({ database, redis } = stack);
  env = {
    ...stack.env,
    ...google.env,
    ...api.env,
    TRENDS_PROVIDER: 'trends-api,google',
    TRENDS_REQUESTS_PER_MINUTE: '0',
    TRENDS_EMBED_GAP_MS: '0',
    LOG_LEVEL: 'warn',
  };
});
afterAll(async () => {
  await stack?.close();
  await google?.stop();
  await api?.stop();
});

describe('research with the Trends API and Google together', () => {
  it('reads the series and maps from the official API (searchInterest, no anchor asked) and autocomplete and related lists from Google', async () => {
    const worker = new ServiceProcess('worker', env);
    const connection = createRedis(redis.url, 'worker');
    const research = new Queue(QUEUES.research, { connection, prefix: redis.keys.queuePrefix(QUEUES.research) });
    try {
      await worker.ready;
      const run = await startRun(database.db, new StepQueue(research), {
        idea: 'Meal planner for busy parents',
        hints: [],
        provider: 'trends-api+google',
        source: 'research',
      });
      const done = await until(
        () => database.db.selectFrom('research_runs').selectAll().where('id', '=', run.id).executeTakeFirstOrThrow(),
        (r) => r.status === 'succeeded' || r.status === 'failed',
        240_000,
        'the run to finish',
      );
      expect(done.status, `${done.error ?? ''}\n${worker.tail.join('\n')}`).toBe('succeeded');
      const steps = await database.db.selectFrom('research_steps').selectAll().where('run_id', '=', run.id).execute();
      expect(steps.filter((s) => s.status === 'done')).toHaveLength(STEP_COUNT);
      const out = (name: string) => steps.find((s) => s.name === name)!.output as Record<string, unknown>;
      const providerOf = (name: string) => (out(name).provenance as { provider?: string } | null)?.provider;

      // Series and maps: the official API's, on its one scale; no anchor term anywhere.
      for (const name of ['interest_30d', 'interest_90d', 'interest_12m', 'interest_5y', 'compare_anchor', 'interest_by_country'])
        expect(providerOf(name), name).toBe('trends-api');
      expect(out('compare_anchor')).toMatchObject({ anchor: null, scale: { values: 'searchInterest' } });
      const asked = api.requests.filter((r) => r.method === 'POST').map((r) => r.body?.term);
      expect(asked.length).toBeGreaterThan(0);
      expect(asked).not.toContain(DEFAULT_ANCHOR);
      // Google was asked for none of them: no interest over time, no map.
      expect(google.google.log.filter((r) => r.kind === 'multiline' || r.kind === 'comparedgeo')).toEqual([]);

      // The lists: Google's, as the API has none.
      expect(out('related_queries_top')).toMatchObject({ served: 'listed', provenance: { provider: 'google' } });
      expect((out('related_queries_top').items as unknown[]).length).toBeGreaterThan(0);
      expect(google.google.log.some((r) => r.kind === 'autocomplete' && r.status === 200)).toBe(true);
      expect(out('autocomplete_phrases')).not.toHaveProperty('unavailable');

      const insight = await database.db
        .selectFrom('insights')
        .select(['provider', 'dimension_scores'])
        .where('id', '=', done.insight_id!)
        .executeTakeFirstOrThrow();
      expect(insight.provider).toBe('trends-api+google');
      expect(Object.values(insight.dimension_scores).filter((s) => typeof s === 'number').length).toBeGreaterThanOrEqual(7);
    } finally {
      await research.close();
      connection.disconnect();
      await worker.kill();
    }
  });
});
