import type { Selectable, Transaction } from 'kysely';
import type { Db } from '../db/connection.js';
import type { Database, ForecastsTable } from '../db/database.js';
import type { Forecast } from '../domain/forecast/forecaster.js';

export type ForecastRow = Selectable<ForecastsTable>;

/** The latest forecast replaces the previous one (history lives in the research steps). */
export async function upsertForecast(trx: Transaction<Database>, insightId: string, forecast: Forecast, generatedAt: Date): Promise<void> {
  await upsertForecasts(trx, [{ insightId, forecast }], generatedAt);
}

/** Several insights' forecasts in one statement (a refresh group writes its members together). */
export async function upsertForecasts(
  trx: Transaction<Database>,
  forecasts: ReadonlyArray<{ insightId: string; forecast: Forecast }>,
  generatedAt: Date,
): Promise<void> {
  if (forecasts.length === 0) return;
  const rows = forecasts.map(({ insightId, forecast }) =>
    forecast.withheld
      ? {
          insight_id: insightId,
          model: null,
          generated_at: generatedAt,
          horizon: 7,
          withheld: true,
          reason: forecast.reason,
          points: '[]',
          backtest: null,
        }
      : {
          insight_id: insightId,
          model: forecast.model,
          generated_at: generatedAt,
          horizon: forecast.horizon,
          withheld: false,
          reason: null,
          points: JSON.stringify(forecast.points),
          backtest: JSON.stringify(forecast.backtest),
        },
  );
  await trx
    .insertInto('forecasts')
    .values(rows)
    .onConflict((oc) =>
      oc.column('insight_id').doUpdateSet((eb) => ({
        model: eb.ref('excluded.model'),
        generated_at: eb.ref('excluded.generated_at'),
        horizon: eb.ref('excluded.horizon'),
        withheld: eb.ref('excluded.withheld'),
        reason: eb.ref('excluded.reason'),
        points: eb.ref('excluded.points'),
        backtest: eb.ref('excluded.backtest'),
      })),
    )
    .execute();
}

export async function findForecast(db: Db | Transaction<Database>, insightId: string): Promise<ForecastRow | undefined> {
  return db.selectFrom('forecasts').selectAll().where('insight_id', '=', insightId).executeTakeFirst();
}
