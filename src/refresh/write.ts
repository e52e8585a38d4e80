// Writing a refresh: every member's series, forecast and scores in one
// transaction with their outbox events, or nothing (the previous data stays).
import { upsertForecasts } from '../insights/forecast.repository.js';
import { setInterestLevels, updateInsightScores } from '../insights/insight.repository.js';
import { replaceTrendPointsOf, upsertInsightSeriesOf } from '../insights/trend-point.repository.js';
import { refreshInsightsWritten } from '../observability/metrics.js';
import { bumpReadModelVersion } from '../redis/read-model-version.js';
import { recordEvents, type NewOutboxEvent } from '../webhooks/event.repository.js';
import type { RefreshDeps } from './fetch.js';
import type { FreshSeries } from './fresh-series.js';

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
  refreshInsightsWritten.inc(fresh.length);
  if (fresh.length > 0) await bumpReadModelVersion(deps.redis, deps.redisKeys, deps.db);
  if (eventIds.length > 0) await deps.announce?.(...eventIds);
  return fresh.map((f) => ({
    insightId: f.insight.id,
    points: f.points.length,
    score: f.overall.score,
    previous: f.insight.overall_score,
  }));
}
