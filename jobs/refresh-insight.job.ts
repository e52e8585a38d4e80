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
import { forecast as fitForecast, type Forecast } from '../src/domain/forecast/forecaster.js';
import { cleanSeries } from '../src/domain/research/series-analysis.js';
import { assessMomentum } from '../src/domain/scoring/momentum.js';
import { combineScores } from '../src/domain/scoring/overall.js';
import { seriesQuality, type SeriesPoint } from '../src/domain/scoring/series.js';
import type { DimensionScores } from '../src/domain/scoring/dimensions.js';
import { upsertForecasts } from '../src/insights/forecast.repository.js';
import { findInsight, setInterestLevels, updateInsightScores, type InsightRow } from '../src/insights/insight.repository.js';
import { recordEvents, type NewOutboxEvent } from '../src/webhooks/event.repository.js';
import { lastDaysRescaled } from '../src/research/trends-plan.js';
import type { InterestOverTime } from '../src/trends/types.js';
import { replaceTrendPointsOf, upsertInsightSeriesOf } from '../src/insights/trend-point.repository.js';
import type { RefreshInsightPayload } from '../src/queue/job-catalogue.js';
import type { Static } from '@sinclair/typebox';
import { sleepWithoutAttempt } from '../src/queue/wait.js';
import { forecastMase } from '../src/observability/metrics.js';
import type { RedisKeys } from '../src/redis/keys.js';
import {
  sleepFor,
  TrendsFailedError,
  WaitingForTrendsError,
  type TrendsGateway,
  type TrendsPurpose,
} from '../src/research/trends-gateway.js';

export interface RefreshDeps {
  db: Db;
  redis: Redis;
  redisKeys: RedisKeys;
  trendsFor(provider: string, purpose?: TrendsPurpose): TrendsGateway;
  /** The provider for researched insights (synthetic insights always use synthetic). */
  provider: string;
  geo: string;
  waitRetryMs?: number;
  announce?: (...eventIds: string[]) => Promise<void>;
}

export function refreshInsightProcessor(deps: RefreshDeps) {
  return async (job: Job<Static<typeof RefreshInsightPayload>>, token?: string) => {
    const { insightId } = job.data;
    const insight = await findInsight(deps.db, insightId);
    if (!insight || insight.status !== 'active') return { skipped: 'no such active insight' };
    if (insight.source === 'demo') return { skipped: 'demo data is static' };
    const answer = await fetchInterest(
      deps,
      job,
      token,
      providerOf(insight, deps.provider),
      [insight.primary_keyword],
      `refresh of ${insightId}`,
    );
    const [written] = await writeFreshSeries(deps, [freshSeriesOf(insight, columnOf(answer, 0), undefined)]);
    return written;
  };
}

/** Synthetic insights refresh from synthetic data; every other one from the configured provider. */
export const providerOf = (insight: Pick<InsightRow, 'source'>, configured: string) =>
  insight.source === 'synthetic' ? 'synthetic' : configured;

/** The 90 days of interest for these keywords (one request), waiting on Google without spending an attempt. */
export async function fetchInterest(
  deps: RefreshDeps,
  job: Job,
  token: string | undefined,
  provider: string,
  keywords: string[],
  what: string,
): Promise<InterestOverTime> {
  let answer;
  try {
    answer = await deps.trendsFor(provider, 'background').fetch({ kind: 'interestOverTime', keywords, timeframe: '90d', geo: deps.geo });
  } catch (error) {
    if (error instanceof WaitingForTrendsError) throw await sleepWithoutAttempt(job, token, sleepFor(error, deps.waitRetryMs ?? 30_000));
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
    points: answer.points.map((p) => ({
      date: p.date,
      values: [p.values[index] ?? 0],
      hasData: [p.hasData[index] ?? false],
      isPartial: p.isPartial,
    })),
  };
}

/**
 * What a fresh 90-day answer makes of one insight, computed before anything is
 * written: the 30-day series (its last 30 days, rescaled), the 90 days
 * themselves, the forecast fitted on them, momentum, the trend class and the
 * overall score. `level` is the popularity the batch measured, when it did.
 */
export interface FreshSeries {
  insight: InsightRow;
  points: SeriesPoint[];
  points90: SeriesPoint[];
  forecast: Forecast;
  dimensions: DimensionScores;
  overall: { score: number; confidence: number };
  level: number | null | undefined;
}

export function freshSeriesOf(insight: InsightRow, answer90: InterestOverTime, level: number | null | undefined): FreshSeries {
  const points90 = answer90.points.map((p) => ({
    date: p.date,
    value: p.values[0] ?? 0,
    hasData: p.hasData[0] ?? false,
    isPartial: p.isPartial,
  }));
  if (points90.length === 0 || points90.every((p) => !p.hasData)) {
    throw new UnrecoverableError(`Google returned no data for "${insight.primary_keyword}"; previous series kept`);
  }
  const answer30 = lastDaysRescaled(answer90, 31); // the window of a 30-day request: today and the 30 days before
  const points = answer30.points.map((p) => ({
    date: p.date,
    value: p.values[0] ?? 0,
    hasData: p.hasData[0] ?? false,
    isPartial: p.isPartial,
  }));

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
  const quality = seriesQuality(
    clean30.values.map((value, i) => ({ date: clean30.dates[i]!, value })),
    30,
  ).quality;
  // Stored on its own scale (a batch scales every column by the batch's maximum), as research stores it.
  const own90 = lastDaysRescaled(answer90, answer90.points.length).points.map((p) => ({
    date: p.date,
    value: p.values[0] ?? 0,
    isPartial: p.isPartial,
  }));
  return { insight, points, points90: own90, forecast, dimensions, overall: combineScores(dimensions, quality), level };
}

/**
 * Writes fresh series in one transaction (a refresh group's members together:
 * a few statements for the group instead of several per member), with an
 * insight.updated event for each insight whose score moved; then one bump of
 * the read-model version and the events announced. `levels` are popularities
 * a batch measured for members it could not serve, kept in the same
 * transaction. If anything fails, nothing is written: every insight keeps its
 * previous series, forecast and scores, and the job is retried.
 */
export async function writeFreshSeries(
  deps: RefreshDeps,
  fresh: readonly FreshSeries[],
  levels: ReadonlyArray<{ insightId: string; level: number }> = [],
) {
  const now = new Date();
  const events: NewOutboxEvent[] = fresh
    .filter((f) => f.overall.score !== f.insight.overall_score)
    .map((f) => ({
      type: 'insight.updated',
      insightId: f.insight.id,
      payload: {
        insight_id: f.insight.id,
        previous_score: f.insight.overall_score,
        overall_score: f.overall.score,
        reason: 'daily refresh',
      },
    }));
  const eventIds = await deps.db.transaction().execute(async (trx) => {
    await replaceTrendPointsOf(
      trx,
      fresh.map((f) => ({ insightId: f.insight.id, points: f.points })),
      now,
    );
    await upsertInsightSeriesOf(
      trx,
      fresh.map((f) => ({ insightId: f.insight.id, timeframe: '90d' as const, points: f.points90 })),
      now,
    );
    await upsertForecasts(
      trx,
      fresh.map((f) => ({ insightId: f.insight.id, forecast: f.forecast })),
      now,
    );
    for (const f of fresh) {
      await updateInsightScores(trx, f.insight.id, {
        dimensions: f.dimensions,
        overall_score: f.overall.score,
        confidence: f.overall.confidence,
        ...(f.level !== undefined && f.level !== null ? { interest_level: f.level } : {}),
      });
    }
    await setInterestLevels(trx, levels);
    return recordEvents(trx, events);
  });
  if (fresh.length > 0) await bumpReadModelVersion(deps.redis, deps.redisKeys, deps.db);
  if (eventIds.length > 0) await deps.announce?.(...eventIds);
  return fresh.map((f) => ({
    insightId: f.insight.id,
    points: f.points.length,
    score: f.overall.score,
    previous: f.insight.overall_score,
  }));
}
