// ingest / refresh-insight: fetch an insight's fresh 30-day series, refit its
// forecast, rescore the dimension that depends on the series (momentum) and
// the overall score — all written in one transaction. If anything fails the
// previous series, forecast and scores stay as they were: never an empty series.
import { UnrecoverableError, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { bumpReadModelVersion } from '../src/redis/read-model-version.js';
import type { Db } from '../src/db/connection.js';
import { newId } from '../src/domain/ids.js';
import { forecast as fitForecast } from '../src/domain/forecast/forecaster.js';
import { cleanSeries } from '../src/domain/research/series-analysis.js';
import { scoreMomentum } from '../src/domain/scoring/momentum.js';
import { combineScores } from '../src/domain/scoring/overall.js';
import { seriesQuality } from '../src/domain/scoring/series.js';
import { upsertForecast } from '../src/insights/forecast.repository.js';
import { findInsight, updateInsightScores } from '../src/insights/insight.repository.js';
import { replaceTrendPoints } from '../src/insights/trend-point.repository.js';
import { checkPayload, RefreshInsightPayload } from '../src/queue/queues.js';
import { sleepWithoutAttempt } from '../src/queue/wait.js';
import { forecastMase } from '../src/observability/metrics.js';
import type { RedisKeys } from '../src/redis/keys.js';
import { TrendsFailedError, WaitingForTrendsError, type TrendsGateway } from '../src/research/trends-gateway.js';

export interface RefreshDeps {
  db: Db;
  redis: Redis;
  redisKeys: RedisKeys;
  trendsFor(provider: string): TrendsGateway;
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

    const provider = insight.source === 'synthetic' ? 'synthetic' : deps.provider;
    let answer;
    try {
      answer = await deps.trendsFor(provider).fetch({ kind: 'interestOverTime', keywords: [insight.primary_keyword], timeframe: '30d', geo: deps.geo });
    } catch (error) {
      if (error instanceof WaitingForTrendsError) throw await sleepWithoutAttempt(job, token, deps.waitRetryMs ?? 30_000);
      if (error instanceof TrendsFailedError) throw new UnrecoverableError(`refresh of ${insightId} failed, previous data kept: ${error.message}`);
      throw error;
    }
    if (answer.kind !== 'interestOverTime') throw new UnrecoverableError(`expected interest over time, got ${answer.kind}`);
    const points = answer.points.map((p) => ({ date: p.date, value: p.values[0] ?? 0, hasData: p.hasData[0] ?? false, isPartial: p.isPartial }));
    if (points.length === 0 || points.every((p) => !p.hasData)) {
      throw new UnrecoverableError(`Google returned no data for "${insight.primary_keyword}"; previous series kept`);
    }

    const clean = cleanSeries(points);
    const forecast = fitForecast(clean.dates, clean.values, 7);
    if (!forecast.withheld && forecast.backtest.mase !== null) forecastMase.observe(forecast.backtest.mase);
    const lastWeek = clean.values.slice(-7).reduce((a, b) => a + b, 0) / Math.max(1, Math.min(7, clean.values.length));
    const direction =
      !forecast.withheld && lastWeek > 0 ? { relativeChange: forecast.points.reduce((a, p) => a + p.value, 0) / forecast.points.length / lastWeek - 1 } : undefined;
    const dimensions = { ...insight.dimensions, momentum: scoreMomentum(points, direction) };
    const quality = seriesQuality(clean.values.map((value, i) => ({ date: clean.dates[i]!, value })), 30).quality;
    const overall = combineScores(dimensions, quality);
    const now = new Date();

    const eventId = newId('event');
    let announced = false;
    await deps.db.transaction().execute(async (trx) => {
      await replaceTrendPoints(trx, insight.id, points, now);
      await upsertForecast(trx, insight.id, forecast, now);
      await updateInsightScores(trx, insight.id, { dimensions, overall_score: overall.score, confidence: overall.confidence });
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
    await bumpReadModelVersion(deps.redis, deps.redisKeys);
    if (announced) await deps.announce?.(eventId);
    return { insightId, points: points.length, score: overall.score, previous: insight.overall_score };
  };
}
