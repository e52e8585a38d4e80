// Research with DataForSEO as the only provider (no route to Google), against
// the loopback DataForSEO: all 40 steps, the dimensions its capabilities allow,
// absolute monthly searches and cost per click on the insight; and its
// refusals (a wrong password, money running out, its per-minute limit, a task
// that fails on its side) leave the run waiting with the operator's message,
// never failed, until they clear.
import { pino } from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config.js';
import { buildTestApp } from '../support/app.js';
import { createApiKey } from '../../src/api-keys/api-key.repository.js';
import { publicWaitingReason } from '../../src/domain/public-error.js';
import { directSeries } from '../../src/research/comparison-service.js';
import { providerGateways } from '../../src/providers/gateway-factory.js';
import { ResearchService, researchSettings } from '../../src/research/research-service.js';
import { WaitingForTrendsError } from '../../src/providers/gateway.js';
import { StepQueue } from '../../src/research/step-queue.js';
import { startRun } from '../../src/research/start-run.js';
import { STEP_COUNT } from '../../src/research/step-contract.js';
import { spendOn } from '../../src/providers/paid-gateway.js';
import { researchRunsSpent } from '../../src/research/allowance.repository.js';
import { paidProviderReports } from '../../src/research/provider-spend.js';
import { planRefresh } from '../../src/refresh/plan.js';
import {
  startDataForSeoOnLoopback,
  type DataForSeoOnLoopback,
  FAKE_LOGIN,
  FAKE_PASSWORD,
  FAKE_PRICES,
} from '../../scripts/lib/dataforseo-on-loopback.js';
import type { TestDatabase } from '../support/database.js';
import { until } from '../support/pipeline.js';
import type { TestRedis } from '../support/redis.js';
import { createTestStack, type TestStack } from '../support/stack.js';

let database: TestDatabase;
let redis: TestRedis;
let stack: TestStack;
let fake: DataForSeoOnLoopback;
let stepQueue: StepQueue;
let config: Config;
/** What the workers logged (level warn and up), to read the operator's messages and look for secrets. */
const logged: string[] = [];

beforeAll(async () => {
  fake = await startDataForSeoOnLoopback();
  stack = await createTestStack({
    env: {
      TRENDS_PROVIDER: 'dataforseo',
      ...fake.env,
      // A refused account or a pace wait is looked at again after 300 ms here (5 minutes by default).
      DATAFORSEO_RETRY_MS: '300',
    },
    workers: true,
    logger: pino({ level: 'warn' }, { write: (line: string) => void logged.push(line) }),
  });
  ({ database, redis, config } = stack);
  stepQueue = new StepQueue(stack.pipeline!.queues.research);
});
afterAll(async () => {
  await stack?.close();
  await fake?.stop();
});
beforeEach(() => {
  fake.password = FAKE_PASSWORD;
  fake.balanceUsd = 100;
});

const runOf = (id: string) => database.db.selectFrom('research_runs').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const stepsOf = (id: string) => database.db.selectFrom('research_steps').selectAll().where('run_id', '=', id).orderBy('step').execute();
const finished = (id: string) =>
  until(
    () => runOf(id),
    (r) => r.status === 'succeeded' || r.status === 'failed',
    60_000,
    `run ${id} to finish`,
  );
const research = (idea: string, geo = 'US') =>
  startRun(database.db, stepQueue, { idea, hints: [], provider: 'dataforseo', source: 'research', geo });

describe('research with DataForSEO alone', () => {
  it('completes all 40 steps, with monthly searches and cost per click for the market on the insight', async () => {
    const before = fake.requests.length;
    const run = await research('Meal planner for busy parents');
    const done = await finished(run.id);
    expect(done.status, done.error ?? '').toBe('succeeded');
    const steps = await stepsOf(run.id);
    expect(steps.filter((s) => s.status === 'done')).toHaveLength(STEP_COUNT);

    const insight = await database.db.selectFrom('insights').selectAll().where('id', '=', done.insight_id!).executeTakeFirstOrThrow();
    const available = Object.values(insight.dimensions).filter((d) => d.score !== null);
    expect(available.length).toBeGreaterThanOrEqual(7);
    const volume = insight.search_volume!;
    expect(volume).toMatchObject({ provider: 'dataforseo', geo: 'US', location: 'United States' });
    expect(volume.keywords[0]!.keyword).toBe(insight.primary_keyword);
    expect(volume.keywords.some((k) => k.monthly_searches !== null && k.cpc_usd !== null && k.history.length === 12)).toBe(true);
    // Demand says which basis it used.
    const demand = insight.dimensions.demand!;
    const primary = volume.keywords[0]!;
    if (primary.monthly_searches !== null) {
      expect(demand.evidence.basis).toBe('absolute');
      expect(demand.evidence.monthly_searches).toBe(primary.monthly_searches);
      expect(demand.explanation).toContain('United States');
    } else expect(demand.evidence.basis).toBe('relative');

    // What DataForSEO cannot answer is recorded as not available, with the reason, never failed.
    const byName = new Map(steps.map((s) => [s.name, s]));
    expect(byName.get('autocomplete_phrases')!.output).toMatchObject({ unavailable: expect.stringContaining('topic autocomplete') });
    expect(byName.get('interest_by_city')!.output).toMatchObject({ unavailable: expect.stringContaining('interest by city') });
    // Every answer names its provider; the related lists' second step read the day's answer, unbilled.
    for (const name of ['interest_90d', 'interest_5y', 'compare_anchor', 'related_queries_top', 'interest_by_country'] as const) {
      expect((byName.get(name)!.output as { provenance: { provider: string } }).provenance.provider, name).toBe('dataforseo');
    }
    expect((byName.get('related_queries_rising')!.output as { provenance: { costUsd: number } }).provenance.costUsd).toBe(0);
    const asked = fake.requests.slice(before);
    expect(asked.filter((r) => r.endpoint === 'searchVolume')).toHaveLength(1);
    // The bill: as many research requests as answered tasks, their cost as billed.
    const spend = await spendOn(redis.redis, redis.keys, 'dataforseo');
    expect(spend.research.requests).toBeGreaterThanOrEqual(asked.filter((r) => r.status === 200 && r.code === 20000).length);
    expect(spend.research.usd).toBeGreaterThan(0);
    // `insights budget`: what a run cost, as billed, and what refreshing the insight will cost a day.
    const [report] = await paidProviderReports(
      database.db,
      redis.redis,
      redis.keys,
      ['dataforseo'],
      await planRefresh(database.db, 'dataforseo'),
    );
    const billed = asked.filter((r) => r.code === 20000);
    expect(report!.perRun).toEqual({
      runs: 1,
      medianRequests: billed.length,
      medianUsd: Math.round(billed.reduce((usd, r) => usd + FAKE_PRICES[r.endpoint as 'explore' | 'searchVolume'], 0) * 1e6) / 1e6,
      medianPoints: 0,
    });
    expect(report!.refresh).toMatchObject({ insights: 1, requests: 1, usdPerDay: 0.009 });
  });

  it.each([
    [
      'a wrong password',
      (): void => void (fake.password = 'rotated-elsewhere'),
      (): void => void (fake.password = FAKE_PASSWORD),
      /refused the login: check DATAFORSEO_LOGIN/,
    ],
    [
      'money running out',
      (): void => void (fake.balanceUsd = 0),
      (): void => void (fake.balanceUsd = 100),
      /refused to bill the account: add funds/,
    ],
  ] as const)('%s: the run waits with the operator message, and finishes once it is fixed', async (_, breakIt, fixIt, message) => {
    breakIt();
    const run = await research(`Dog walking marketplace ${Math.random().toString(36).slice(2, 6)}`);
    const waiting = await until(
      () => runOf(run.id),
      (r) => r.status === 'waiting',
      30_000,
      'the run to wait',
    );
    expect(waiting.waiting_reason).toMatch(/^waiting for DataForSEO \(/);
    expect(waiting.waiting_reason).toMatch(message);
    expect((await stepsOf(run.id)).filter((s) => s.status === 'failed')).toHaveLength(0);
    fixIt();
    const done = await finished(run.id);
    expect(done.status, done.error ?? '').toBe('succeeded');
    // The operator is told in the log too, and the account's secret is never written.
    expect(logged.some((line) => message.test(line))).toBe(true);
    const secrets = [FAKE_PASSWORD, Buffer.from(`${FAKE_LOGIN}:${FAKE_PASSWORD}`).toString('base64')];
    expect(logged.filter((line) => secrets.some((s) => line.includes(s)))).toEqual([]);
  });

  it('its per-minute limit and a task that fails on its side: waited out, no failed step', async () => {
    fake.failNext(2, 40202);
    fake.failNext(1, 50000);
    const run = await research(`Bike repair subscription ${Math.random().toString(36).slice(2, 6)}`);
    const done = await finished(run.id);
    expect(done.status, done.error ?? '').toBe('succeeded');
    // No attempt of any step failed: the waits spent none.
    expect((await stepsOf(run.id)).filter((s) => s.error !== null)).toHaveLength(0);
  });
});

describe('what the review of issue 38 found', () => {
  it('API clients see the request a run waits for, never the operator message about the account', async () => {
    fake.password = 'rotated-elsewhere';
    const run = await research(`Rooftop garden kits ${Math.random().toString(36).slice(2, 6)}`);
    const waiting = await until(
      () => runOf(run.id),
      (r) => r.status === 'waiting',
      30_000,
      'the run to wait',
    );
    expect(waiting.waiting_reason).toMatch(/refused the login/);
    const shown = publicWaitingReason(waiting.waiting_reason)!;
    expect(shown).toMatch(/^waiting for DataForSEO \(/);
    expect(shown).not.toMatch(/DATAFORSEO_|login|password|40100|add funds/);
    fake.password = FAKE_PASSWORD;
    expect((await finished(run.id)).status).toBe('succeeded');
    // Said to the operator once per problem, not on every look.
    expect(logged.filter((line) => line.includes('"level":50') && line.includes('refused the login')).length).toBeGreaterThanOrEqual(1);
    const before = logged.filter((line) => line.includes('"level":50')).length;
    fake.password = 'rotated-elsewhere';
    const again = await research(`Rooftop garden kits ${Math.random().toString(36).slice(2, 6)}`);
    await until(
      () => runOf(again.id),
      (r) => r.status === 'waiting',
      30_000,
      'the second run to wait',
    );
    // Several looks while it waits (each ~5 s apart here), one line.
    await new Promise((resolve) => setTimeout(resolve, 11_000));
    expect(logged.filter((line) => line.includes('"level":50')).length - before).toBe(1);
    fake.password = FAKE_PASSWORD;
    expect((await finished(again.id)).status).toBe('succeeded');
  }, 90_000);

  it('a market DataForSEO cannot ask is refused at submission, and a region gets no search volume (not an empty answer, not billed)', async () => {
    const service = new ResearchService(database.db, stepQueue, { ...researchSettings(config), provider: 'dataforseo' });
    await expect(service.submit({ operator: true }, { idea: 'Kayak rental app', geo: 'US-CA' })).rejects.toThrow(
      /cannot be researched with this service's search data \(DataForSEO, asked by country\)/,
    );
    const gateway = providerGateways({ config, logger: pino({ level: 'silent' }), redis: redis.redis, keys: redis.keys })('dataforseo');
    const sent = fake.requests.length;
    const spend = await spendOn(redis.redis, redis.keys, 'dataforseo');
    await expect(gateway.fetch({ kind: 'searchVolume', keywords: ['kayak rental'], geo: 'US-CA', language: 'en' })).rejects.toMatchObject({
      notAvailable: true,
      message: expect.stringMatching(/monthly search volume for US-CA: it is asked by country/),
    });
    expect(fake.requests.length).toBe(sent);
    expect(await spendOn(redis.redis, redis.keys, 'dataforseo')).toEqual(spend);
    // Refused without asking: none of its per-minute pace spent (it would hold back real requests).
    const minute = Math.floor(Date.now() / 60_000);
    const paced = await redis.redis.get(redis.keys.providerPace('dataforseo', 'searchVolume', minute));
    await gateway.fetch({ kind: 'searchVolume', keywords: ['kayak rental'], geo: 'US-CA', language: 'en' }).catch(() => undefined);
    if (Math.floor(Date.now() / 60_000) === minute)
      expect(await redis.redis.get(redis.keys.providerPace('dataforseo', 'searchVolume', minute))).toBe(paced);
  });

  it('the same request asked at once by three jobs is sent and billed once; the others wait for its answer', async () => {
    const gateway = providerGateways({ config, logger: pino({ level: 'silent' }), redis: redis.redis, keys: redis.keys })('dataforseo');
    const request = { kind: 'interestOverTime' as const, keywords: [`concurrent ${Math.random()}`], timeframe: '90d' as const, geo: 'US' };
    const sent = fake.requests.length;
    const results = await Promise.allSettled([gateway.fetch(request), gateway.fetch(request), gateway.fetch(request)]);
    expect(fake.requests.length - sent).toBe(1);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results.filter((r) => r.status === 'rejected'))
      expect((r as PromiseRejectedResult).reason).toBeInstanceOf(WaitingForTrendsError);
    // Asked again: the day's answer, unbilled.
    expect((await gateway.fetch(request)).provenance).toMatchObject({ provider: 'dataforseo', costUsd: 0, requests: 0 });
    expect(fake.requests.length - sent).toBe(1);
  });

  it('a comparison DataForSEO refuses for good is a 502 problem, not a 500', async () => {
    const gateway = providerGateways({ config, logger: pino({ level: 'silent' }), redis: redis.redis, keys: redis.keys })('dataforseo');
    const app = await buildTestApp(
      {
        database,
        redis,
        overrides: { researchSettings: { ...researchSettings(config), provider: 'dataforseo' }, series: directSeries(gateway) },
      },
      { overloadMaxEventLoopDelayMs: 0 },
    );
    try {
      // Two public insights researched above (the catalogue's, in market US).
      const ideas = await Promise.all(
        ['Meal planner for busy parents', 'Dog walking marketplace'].map(
          async (start) =>
            (await database.db.selectFrom('insights').select('idea').where('idea', 'like', `${start}%`).executeTakeFirstOrThrow()).idea,
        ),
      );
      const { key, accountId } = await createApiKey(database.db, 'comparisons', 'pro', null, ['insights:read', 'research:write']);
      fake.failNext(1, 40501);
      const refused = await app.inject({
        method: 'POST',
        url: '/api/comparisons',
        headers: { authorization: `Bearer ${key}` },
        payload: { ideas, geo: 'US' },
      });
      expect(refused.statusCode, refused.body).toBe(502);
      expect(refused.headers['content-type']).toMatch(/problem\+json/);
      expect(refused.json()).toMatchObject({ type: '/problems/search-data-unavailable' });
      expect(refused.body).not.toMatch(/40501|Invalid Field/);
      // The client got nothing: the comparison is not charged to its allowance.
      expect(await researchRunsSpent(database.db, accountId, new Date())).toBe(0);
    } finally {
      await app.close();
    }
  });
});
