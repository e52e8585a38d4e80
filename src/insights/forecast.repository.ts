import type { Selectable, Transaction } from 'kysely';
import type { Db } from '../db/connection.js';
import type { Database, ForecastsTable } from '../db/database.js';
import type { Forecast } from '../domain/forecast/forecaster.js';

export type ForecastRow = Selectable<ForecastsTable>;

/** The latest forecast replaces the previous one (history lives in the research steps). */
export async function upsertForecast(trx: Transaction<Database>, insightId: string, forecast: Forecast, generatedAt: Date): Promise<void> {
  const row = forecast.withheld
    ? { insight_id: insightId, model: null, generated_at: generatedAt, horizon: 7, withheld: true, reason: forecast.reason, points: '[]', backtest: null }
    : {
        insight_id: insightId,
        model: forecast.model,
        generated_at: generatedAt,
        horizon: forecast.horizon,
        withheld: false,
        reason: null,
        points: JSON.stringify(forecast.points),
        backtest: JSON.stringify(forecast.backtest),
      };
  await trx
    .insertInto('forecasts')
    .values(row)
    .onConflict((oc) => oc.column('insight_id').doUpdateSet(row))
    .execute();
}

export async function findForecast(db: Db | Transaction<Database>, insightId: string): Promise<ForecastRow | undefined> {
  return db.selectFrom('forecasts').selectAll().where('insight_id', '=', insightId).executeTakeFirst();
}
