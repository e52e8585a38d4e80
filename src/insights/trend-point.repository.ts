import type { Selectable, Transaction } from 'kysely';
import type { Db } from '../db/connection.js';
import type { Database, StoredTimeframe, TrendPointsTable } from '../db/database.js';
import type { SeriesPoint } from '../domain/scoring/series.js';

export type TrendPointRow = Selectable<TrendPointsTable>;

/**
 * Replaces an insight's series with a fresh fetch. Needs a transaction: the old
 * series must never disappear without the new one taking its place.
 */
export async function replaceTrendPoints(
  trx: Transaction<Database>,
  insightId: string,
  points: readonly SeriesPoint[],
  fetchedAt: Date,
): Promise<void> {
  await trx.deleteFrom('trend_points').where('insight_id', '=', insightId).execute();
  if (points.length === 0) return;
  await trx
    .insertInto('trend_points')
    .values(
      points.map((p) => ({
        insight_id: insightId,
        date: p.date,
        value: p.value,
        is_partial: p.isPartial ?? false,
        fetched_at: fetchedAt,
      })),
    )
    .execute();
}

/** Newest first; latestTrendPoints reverses. Exported so the API benchmark's baseline runs the same SQL. */
export function latestTrendPointsQuery(db: Db | Transaction<Database>, insightId: string, days: number) {
  return db.selectFrom('trend_points').selectAll().where('insight_id', '=', insightId).orderBy('date', 'desc').limit(days);
}

/** The most recent `days` points, oldest first. */
export async function latestTrendPoints(db: Db | Transaction<Database>, insightId: string, days = 30): Promise<TrendPointRow[]> {
  return (await latestTrendPointsQuery(db, insightId, days).execute()).reverse();
}

/** Replaces one of an insight's longer series (90 days, 12 months, 5 years) with a fresh fetch. */
export async function upsertInsightSeries(
  trx: Transaction<Database>,
  insightId: string,
  timeframe: StoredTimeframe,
  points: readonly SeriesPoint[],
  fetchedAt: Date,
): Promise<void> {
  const row = {
    insight_id: insightId,
    timeframe,
    points: JSON.stringify(points.map((p) => ({ date: p.date, value: p.value, is_partial: p.isPartial ?? false }))),
    fetched_at: fetchedAt,
  };
  await trx
    .insertInto('insight_series')
    .values(row)
    .onConflict((oc) => oc.columns(['insight_id', 'timeframe']).doUpdateSet({ points: row.points, fetched_at: row.fetched_at }))
    .execute();
}

export async function findInsightSeries(db: Db | Transaction<Database>, insightId: string, timeframe: StoredTimeframe) {
  return db.selectFrom('insight_series').select(['points', 'fetched_at']).where('insight_id', '=', insightId).where('timeframe', '=', timeframe).executeTakeFirst();
}
