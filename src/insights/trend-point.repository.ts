import type { Selectable, Transaction } from 'kysely';
import type { Db } from '../db/connection.js';
import type { Database, TrendPointsTable } from '../db/database.js';
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
