// Ingestion faults through the real Google path (our client over HTTPS,
// answered by nock): a 429 storm loses nothing, and a failed refresh keeps the
// previous series and forecast. The 30-point answer is built in Google's
// multiline format from a real GTAB series (no 30-day recording exists).
import nock from 'nock';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config.js';
import { newId } from '../../src/domain/ids.js';
import type { Resources } from '../../src/runtime/resources.js';
import { egressPoolFor } from '../../src/runtime/egress.js';
import type { Pipeline } from '../../src/runtime/workers.js';
import { startTestWorkers } from '../support/services.js';
import { upsertInsight } from '../../src/insights/insight.repository.js';
import { replaceTrendPoints } from '../../src/insights/trend-point.repository.js';
import { upsertForecast } from '../../src/insights/forecast.repository.js';
import { forecast } from '../../src/domain/forecast/forecaster.js';
import type { TestDatabase } from '../support/database.js';
import { dimensionsWith } from '../support/fixtures.js';
import { until } from '../support/pipeline.js';
import { createTestStack, type TestStack } from '../support/stack.js';
import { recordedBody } from '../support/recorded.js';
import { demoSeries } from '../support/shared-data.js';
import { enqueue } from '../../src/queue/enqueue.js';
import { JOB } from '../../src/queue/job-catalogue.js';

const GOOGLE = 'https://trends.google.com';
let database: TestDatabase;
let pipeline: Pipeline;
let insightId: string;
let resources: Resources;
let config: Config;
let stack: TestStack;

function multilineBody(values: Array<{ date: string; value: number }>): string {
  const timelineData = values.map((p) => ({
    time: String(Date.parse(`${p.date}T00:00:00Z`) / 1000),
    formattedTime: p.date,
    formattedAxisTime: p.date,
    value: [p.value],
    hasData: [true],
    formattedValue: [String(p.value)],
  }));
  return `)]}',\n${JSON.stringify({ default: { timelineData, averages: [] } })}`;
}
const explore = () => recordedBody('pytrends', 'test_interest_over_time_ok__f6b2d0c230', /_explore_200\.json\.txt$/);
const sorry = () => recordedBody('rate-limited-2025', 'test_interest_over_time_ok__18c9392ff6', /01_POST_trends_api_explore_302/);

const pointsOf = () =>
  database.db.selectFrom('trend_points').select(['date', 'value']).where('insight_id', '=', insightId).orderBy('date').execute();
const forecastOf = () => database.db.selectFrom('forecasts').selectAll().where('insight_id', '=', insightId).executeTakeFirst();

beforeAll(async () => {
  nock.disableNetConnect();
  nock.enableNetConnect(/127\.0\.0\.1|localhost/);
  stack = await createTestStack({
    env: {
      TRENDS_PROVIDER: 'google',
      TRENDS_COOLDOWN_MS: '200',
      TRENDS_COOLDOWN_MAX_MS: '2000',
      TRENDS_WAIT_MS: '500',
      TRENDS_REQUESTS_PER_MINUTE: '0',
    },
  });
  ({ database, resources, config } = stack);
  insightId = newId('insight');
  await upsertInsight(database.db, {
    id: insightId,
    idea_key: 'pizza delivery by drone',
    title: 'Pizza delivery by drone',
    idea: 'Pizza delivery by drone',
    primary_keyword: 'pizza',
    keywords: ['pizza'],
    category: 'food-drink',
    source: 'research',
    overall_score: 0.5,
    confidence: 0.5,
    dimensions: dimensionsWith(0.5),
    summary: 'fixture',
    status: 'active',
  });
  // Started after the insight exists: the workers' first refresh finds it.
  pipeline = await startTestWorkers(resources, config, pino({ level: 'silent' }));
});
afterAll(async () => {
  await pipeline.close();
  nock.cleanAll();
  nock.enableNetConnect();
  await stack.close();
});

describe('ingestion faults', () => {
  it('rides out a 429 storm: the refresh waits, then lands the fresh series and forecast', async () => {
    // The refresh asks for 90 days (the 30-day series is their last 30, rescaled).
    const series = [...(await demoSeries()).values()][7]!.slice(-90);
    // The cookie from a page, five blocks (redirects to Google's "sorry" page: each a cooldown, then one probe), then a normal exchange.
    nock(GOOGLE).get('/trends/').reply(200, '<html>Google Trends</html>', {
      'set-cookie': 'NID=511=storm; expires=Fri, 01-Jan-2100 00:00:00 GMT; path=/; domain=.google.com',
    });
    nock(GOOGLE).get('/trends/api/explore').query(true).times(5).reply(302, sorry(), { location: 'https://www.google.com/sorry/index' });
    nock(GOOGLE).get('/trends/api/explore').query(true).reply(200, explore());
    nock(GOOGLE).get('/trends/api/widgetdata/multiline').query(true).reply(200, multilineBody(series));

    await enqueue(pipeline.queues.ingest, JOB.refreshAll, {});
    // The 30-day window: today and the 30 days before it, as a 30-day request answers.
    const points = await until(pointsOf, (p) => p.length === 31, 60_000, 'the refreshed series');
    const last30 = series.slice(-31);
    const max = Math.max(...last30.map((p) => p.value));
    expect(points).toEqual(last30.map((p) => ({ date: p.date, value: Math.round((p.value * 100) / max) })));
    const forecast = await forecastOf();
    expect(forecast).toBeDefined();
    // The 90 days stay fresh too (GET /trend-data?window=90d), on their own scale, with momentum and the class read from them.
    const stored90 = await database.db
      .selectFrom('insight_series')
      .select('points')
      .where('insight_id', '=', insightId)
      .where('timeframe', '=', '90d')
      .executeTakeFirstOrThrow();
    const max90 = Math.max(...series.map((p) => p.value));
    expect(stored90.points.map((p) => p.value)).toEqual(series.map((p) => Math.round((p.value * 100) / max90)));
    const refreshed = await database.db
      .selectFrom('insights')
      .select(['dimensions', 'trend_class'])
      .where('id', '=', insightId)
      .executeTakeFirstOrThrow();
    expect(refreshed.dimensions.momentum.evidence.model).toBe('90d');
    expect(refreshed.trend_class).toBe(refreshed.dimensions.momentum.evidence.trend_class);
    const [direct] = await egressPoolFor(resources, config).budget();
    // Each block was a cooldown, each cooldown ended with one probe (the fifth answered), and the streak ends with it.
    expect(direct).toMatchObject({ route: 'direct', blocked: 5, answers: 1, streak: 0, cooldowns: 5, probes: 5, state: 'open' });
    expect(nock.isDone()).toBe(true);
  }, 180_000);

  it('keeps the previous series and forecast when a refresh fails', async () => {
    // Another phrase (today's "pizza" answer is already fetched and would be reused), with data in place.
    const other = newId('insight');
    await upsertInsight(database.db, {
      id: other,
      idea_key: 'bagel subscription',
      title: 'Bagel subscription',
      idea: 'Bagel subscription',
      primary_keyword: 'bagel',
      keywords: ['bagel'],
      category: 'food-drink',
      source: 'research',
      overall_score: 0.4,
      confidence: 0.5,
      dimensions: dimensionsWith(0.4),
      summary: 'fixture',
      status: 'active',
    });
    const previous = [...(await demoSeries()).values()][9]!.slice(-30);
    await database.db.transaction().execute(async (trx) => {
      await replaceTrendPoints(trx, other, previous, new Date('2026-11-01T00:00:00Z'));
      await upsertForecast(
        trx,
        other,
        forecast(
          previous.map((p) => p.date),
          previous.map((p) => p.value),
        ),
        new Date('2026-11-01T00:00:00Z'),
      );
    });
    const pointsOfOther = () =>
      database.db.selectFrom('trend_points').selectAll().where('insight_id', '=', other).orderBy('date').execute();
    const forecastOfOther = () => database.db.selectFrom('forecasts').selectAll().where('insight_id', '=', other).executeTakeFirst();
    const before = await pointsOfOther();
    const forecastBefore = await forecastOfOther();
    expect(before).toHaveLength(30);
    nock(GOOGLE).get('/trends/api/explore').query(true).reply(200, '<html><body>Something changed</body></html>');

    // A changed answer fails the refresh for good at its first attempt (UnrecoverableError).
    const job = await enqueue(pipeline.queues.ingest, JOB.refreshInsight, { insightId: other }, 'broken');
    await until(
      () => job.getState(),
      (s) => s === 'failed',
      60_000,
      'the refresh to fail',
    );
    const failed = await pipeline.queues.ingest.getJob(job.id!);
    expect(failed?.failedReason).toMatch(/previous data kept.*not its JSON/);
    expect(await pointsOfOther()).toEqual(before);
    expect(await forecastOfOther()).toEqual(forecastBefore);
    const insight = await database.db.selectFrom('insights').select('overall_score').where('id', '=', other).executeTakeFirstOrThrow();
    expect(insight.overall_score).toBe(0.4);
  }, 180_000);
});
