import type { Db } from '../../src/db/connection.js';
import { newId } from '../../src/domain/ids.js';
import { recordEvents } from '../../src/webhooks/event.repository.js';

/** `n` deliveries of the subscription, already finished (failed), made over the last hour: what a replay window finds. */
export async function pastDeliveries(db: Db, subscriptionId: string, n: number): Promise<string[]> {
  const ids = Array.from({ length: n }, () => newId('delivery'));
  const start = Date.now() - 3_600_000;
  for (let i = 0; i < ids.length; i += 500) {
    const batch = ids.slice(i, i + 500);
    await db.transaction().execute(async (trx) => {
      // One event each: a subscription gets one delivery of an event.
      const events = await recordEvents(
        trx,
        batch.map(() => ({ type: 'ping' as const, insightId: null, payload: {}, relayedAt: new Date() })),
      );
      await trx
        .insertInto('webhook_deliveries')
        .values(
          batch.map((id, j) => ({
            id,
            event_id: events[j]!,
            subscription_id: subscriptionId,
            status: 'failed' as const,
            created_at: new Date(start + (i + j) * 10),
          })),
        )
        .execute();
    });
  }
  return ids;
}
