import { sql, type Selectable, type Transaction } from 'kysely';
import type { Db } from '../db/connection.js';
import type { Database, StoredTimeframe, TrendPointsTable } from '../db/database.js';
import type { SeriesPoint } from '../domain/scoring/series.js';
import { stampDataDates } from './insight.repository.js';

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
  await replaceTrendPointsOf(trx, [{ insightId, points }], fetchedAt);
}

/** Replaces several insights' series in two statements (a refresh group writes its members together). */
export async function replaceTrendPointsOf(
  trx: Transaction<Database>,
  series: ReadonlyArray<{ insightId: string; points: readonly SeriesPoint[] }>,
  fetchedAt: Date,
): Promise<void> {
  if (series.length === 0) return;
  await trx
    .deleteFrom('trend_points')
    .where(
      'insight_id',
      'in',
      series.map((s) => s.insightId),
    )
    .execute();
  const rows = series.flatMap((s) =>
    s.points.map((p) => ({
      insight_id: s.insightId,
      date: p.date,
      value: p.value,
      is_partial: p.isPartial ?? false,
      fetched_at: fetchedAt,
    })),
  );
  if (rows.length > 0) await trx.insertInto('trend_points').values(rows).execute();
  await stampDataDates(
    trx,
    series.map((s) => s.insightId),
  );
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
  await upsertInsightSeriesOf(trx, [{ insightId, timeframe, points }], fetchedAt);
}

/** Several insights' (or timeframes') series in one statement. */
export async function upsertInsightSeriesOf(
  trx: Transaction<Database>,
  series: ReadonlyArray<{ insightId: string; timeframe: StoredTimeframe; points: readonly SeriesPoint[] }>,
  fetchedAt: Date,
): Promise<void> {
  if (series.length === 0) return;
  await trx
    .insertInto('insight_series')
    .values(
      series.map((s) => ({
        insight_id: s.insightId,
        timeframe: s.timeframe,
        points: JSON.stringify(s.points.map((p) => ({ date: p.date, value: p.value, is_partial: p.isPartial ?? false }))),
        fetched_at: fetchedAt,
      })),
    )
    .onConflict((oc) =>
      oc
        .columns(['insight_id', 'timeframe'])
        .doUpdateSet((eb) => ({ points: eb.ref('excluded.points'), fetched_at: eb.ref('excluded.fetched_at') })),
    )
    .execute();
  await stampDataDates(
    trx,
    series.map((s) => s.insightId),
  );
}

export async function findInsightSeries(db: Db | Transaction<Database>, insightId: string, timeframe: StoredTimeframe) {
  return db
    .selectFrom('insight_series')
    .select(['points', 'fetched_at'])
    .where('insight_id', '=', insightId)
    .where('timeframe', '=', timeframe)
    .executeTakeFirst();
}

/**
 * The most recent `days` points of each of several insights, oldest first, in one statement (a list page's
 * sparklines: one query for the page, not one per row).
 */
export async function latestTrendPointsOf(
  db: Db | Transaction<Database>,
  insightIds: readonly string[],
  days: number,
): Promise<Map<string, Array<{ date: string; value: number }>>> {
  const out = new Map<string, Array<{ date: string; value: number }>>();
  if (insightIds.length === 0) return out;
  const rows = await db
    .selectFrom((eb) =>
      eb
        .selectFrom('trend_points')
        .select([
          'insight_id',
          'date',
          'value',
          sql<number>`row_number() over (partition by ${sql.ref('insight_id')} order by ${sql.ref('date')} desc)`.as('newest'),
        ])
        .where('insight_id', 'in', insightIds)
        .as('recent'),
    )
    .select(['insight_id', 'date', 'value'])
    .where('newest', '<=', days)
    .orderBy('insight_id')
    .orderBy('date')
    .execute();
  for (const row of rows) {
    const points = out.get(row.insight_id) ?? [];
    points.push({ date: row.date, value: row.value });
    out.set(row.insight_id, points);
  }
  return out;
}
