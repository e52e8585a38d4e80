// ingest / refresh-insight: one insight's fresh 90 days from a request of its
// own (most insights are refreshed in batches: refresh-group.job.ts; this is
// for the ones a batch could not serve precisely). The 30-day series, the
// forecast, momentum and the overall score are written in one transaction. If
// anything fails the previous series, forecast and scores stay as they were:
// never an empty series.
import { UnrecoverableError, type Job } from 'bullmq';
import type { Redis } from '../src/redis/connection.js';
import { bumpReadModelVersion } from '../src/redis/read-model-version.js';
import type { Db } from '../src/db/connection.js';
import { newId } from '../src/domain/ids.js';
import { forecast as fitForecast } from '../src/domain/forecast/forecaster.js';
import { cleanSeries } from '../src/domain/research/series-analysis.js';
import { assessMomentum } from '../src/domain/scoring/momentum.js';
import { combineScores } from '../src/domain/scoring/overall.js';
import { seriesQuality } from '../src/domain/scoring/series.js';
import { upsertForecast } from '../src/insights/forecast.repository.js';
import { findInsight, updateInsightScores, type InsightRow } from '../src/insights/insight.repository.js';
import { lastDaysRescaled } from '../src/research/trends-plan.js';
import type { InterestOverTime } from '../src/trends/types.js';
import { replaceTrendPoints, upsertInsightSeries } from '../src/insights/trend-point.repository.js';
import { checkPayload, RefreshInsightPayload } from '../src/queue/queues.js';
import { sleepWithoutAttempt } from '../src/queue/wait.js';
import { forecastMase } from '../src/observability/metrics.js';
import type { RedisKeys } from '../src/redis/keys.js';
import { TrendsFailedError, WaitingForTrendsError, type TrendsGateway, type TrendsPurpose } from '../src/research/trends-gateway.js';

export interface RefreshDeps {
  db: Db;
  redis: Redis;
  redisKeys: RedisKeys;
  trendsFor(provider: string, purpose?: TrendsPurpose): TrendsGateway;
  /** The provider for researched insights (synthetic insights always use synthetic). */
  provider: string;
  geo: string;
  waitRetryMs?: number;
  announce?: (eventId: string) => Promise<void>;
}

export function refreshInsightProcessor(deps: RefreshDeps) {
  return async (job: Job, token?: string) => {
    const { insightId } = checkPayload(RefreshInsightPayload, job.data, job.name);
    const insight = await findInsight(deps.db, insightId);
    if (!insight || insight.status !== 'active') return { skipped: 'no such active insight' };
    if (insight.source === 'demo') return { skipped: 'demo data is static' };
    const answer = await fetchInterest(deps, job, token, providerOf(insight, deps.provider), [insight.primary_keyword], `refresh of ${insightId}`);
    return applyFreshSeries(deps, insight, columnOf(answer, 0), undefined);
  };
}

/** Synthetic insights refresh from synthetic data; every other one from the configured provider. */
export const providerOf = (insight: Pick<InsightRow, 'source'>, configured: string) => (insight.source === 'synthetic' ? 'synthetic' : configured);

/** The 90 days of interest for these keywords (one request), waiting on Google without spending an attempt. */
export async function fetchInterest(deps: RefreshDeps, job: Job, token: string | undefined, provider: string, keywords: string[], what: string): Promise<InterestOverTime> {
  let answer;
  try {
    answer = await deps.trendsFor(provider, 'background').fetch({ kind: 'interestOverTime', keywords, timeframe: '90d', geo: deps.geo });
  } catch (error) {
    if (error instanceof WaitingForTrendsError) throw await sleepWithoutAttempt(job, token, deps.waitRetryMs ?? 30_000);
    if (error instanceof TrendsFailedError) throw new UnrecoverableError(`${what} failed, previous data kept: ${error.message}`);
    throw error;
  }
  if (answer.kind !== 'interestOverTime') throw new UnrecoverableError(`expected interest over time, got ${answer.kind}`);
  return answer;
}

/** One keyword's column of an answer, as that keyword's own answer. */
export function columnOf(answer: InterestOverTime, index: number): InterestOverTime {
  return {
    kind: 'interestOverTime',
    keywords: [answer.keywords[index] ?? ''],
    points: answer.points.map((p) => ({ date: p.date, values: [p.values[index] ?? 0], hasData: [p.hasData[index] ?? false], isPartial: p.isPartial })),
  };
}

/**
 * Writes a fresh 90-day answer for one insight, as research does: the 30-day
 * series (its last 30 days, rescaled), the 90 days themselves, the forecast
 * fitted on them, momentum, the trend class and the overall score, in one transaction, with an
 * insight.updated event when the score moved. `level` is the popularity the
 * batch measured, when it did.
 */
export async function applyFreshSeries(deps: RefreshDeps, insight: InsightRow, answer90: InterestOverTime, level: number | null | undefined) {
  const points90 = answer90.points.map((p) => ({ date: p.date, value: p.values[0] ?? 0, hasData: p.hasData[0] ?? false, isPartial: p.isPartial }));
  if (points90.length === 0 || points90.every((p) => !p.hasData)) {
    throw new UnrecoverableError(`Google returned no data for "${insight.primary_keyword}"; previous series kept`);
  }
  const answer30 = lastDaysRescaled(answer90, 31); // the window of a 30-day request: today and the 30 days before
  const points = answer30.points.map((p) => ({ date: p.date, value: p.values[0] ?? 0, hasData: p.hasData[0] ?? false, isPartial: p.isPartial }));

  const clean90 = cleanSeries(points90);
  const forecast = fitForecast(clean90.dates, clean90.values, 7);
  if (!forecast.withheld && forecast.backtest.mase !== null) forecastMase.observe(forecast.backtest.mase);
  const seasonality = insight.dimensions.momentum?.evidence.yearly_seasonality;
  const { momentum } = assessMomentum({
    days30: points.filter((p) => p.hasData),
    days90: points90.filter((p) => p.hasData),
    // The 5 years are not refetched daily: the run's reading of them stands.
    yearlySeasonality: typeof seasonality === 'number' ? seasonality : null,
  });
  const dimensions = { ...insight.dimensions, momentum };
  const clean30 = cleanSeries(points);
  const quality = seriesQuality(clean30.values.map((value, i) => ({ date: clean30.dates[i]!, value })), 30).quality;
  const overall = combineScores(dimensions, quality);
  const now = new Date();

  const eventId = newId('event');
  let announced = false;
  await deps.db.transaction().execute(async (trx) => {
    await replaceTrendPoints(trx, insight.id, points, now);
    // Stored on its own scale (a batch scales every column by the batch's maximum), as research stores it.
    const own90 = lastDaysRescaled(answer90, answer90.points.length).points;
    await upsertInsightSeries(trx, insight.id, '90d', own90.map((p) => ({ date: p.date, value: p.values[0] ?? 0, isPartial: p.isPartial })), now);
    await upsertForecast(trx, insight.id, forecast, now);
    await updateInsightScores(trx, insight.id, { dimensions, overall_score: overall.score, confidence: overall.confidence, ...(level !== undefined && level !== null ? { interest_level: level } : {}) });
    if (overall.score !== insight.overall_score) {
      await trx
        .insertInto('outbox_events')
        .values({
          id: eventId,
          type: 'insight.updated',
          insight_id: insight.id,
          payload: JSON.stringify({ insight_id: insight.id, previous_score: insight.overall_score, overall_score: overall.score, reason: 'daily refresh' }),
        })
        .execute();
      announced = true;
    }
  });
  await bumpReadModelVersion(deps.redis, deps.redisKeys, deps.db);
  if (announced) await deps.announce?.(eventId);
  return { insightId: insight.id, points: points.length, score: overall.score, previous: insight.overall_score };
}
