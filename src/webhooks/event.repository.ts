// The outbox: every event is written here, in the transaction of the change it
// announces, and read back with the insight it announces in one query for many
// events at once (the match and deliver jobs batch their reads; see Batcher).
import { sql, type Selectable, type Transaction } from 'kysely';
import { jsonObjectFrom } from 'kysely/helpers/postgres';
import type { Db } from '../db/connection.js';
import type { Database, InsightsTable, OutboxEventsTable } from '../db/database.js';
import { newId } from '../domain/ids.js';

import { WEBHOOK_EVENT_TYPES } from '../domain/webhooks/subscription-input.js';

export const OUTBOX_EVENT_TYPES = WEBHOOK_EVENT_TYPES;
export type OutboxEventType = (typeof OUTBOX_EVENT_TYPES)[number];

export interface NewOutboxEvent {
  type: OutboxEventType;
  insightId: string | null;
  payload: Record<string, unknown>;
  /** Set for an event sent directly rather than through matching (a ping): the relay leaves it alone. */
  relayedAt?: Date;
}

/**
 * Writes outbox events in the caller's transaction, so an event exists exactly
 * when the change it announces committed. Answers their ids, in order, for
 * announcing once the transaction commits.
 */
export async function recordEvents(trx: Transaction<Database>, events: readonly NewOutboxEvent[]): Promise<string[]> {
  if (events.length === 0) return [];
  const rows = events.map((e) => ({
    id: newId('event'),
    type: e.type,
    insight_id: e.insightId,
    payload: JSON.stringify(e.payload),
    ...(e.relayedAt ? { relayed_at: e.relayedAt } : {}),
  }));
  await trx.insertInto('outbox_events').values(rows).execute();
  return rows.map((r) => r.id);
}

/** Matching is done for this event: the relay stops offering it. */
export async function markEventRelayed(db: Db, id: string): Promise<void> {
  await db
    .updateTable('outbox_events')
    .set({ relayed_at: sql<Date>`now()` })
    .where('id', '=', id)
    .execute();
}

/** markEventRelayed for many events in one statement (match jobs finishing at the same time; see Batcher). */
export async function markEventsRelayed(db: Db, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await db
    .updateTable('outbox_events')
    .set({ relayed_at: sql<Date>`now()` })
    .where('id', 'in', [...new Set(ids)])
    .execute();
}

/**
 * Events nobody has matched yet, oldest first, past a short grace period (an
 * event just committed is usually being announced right now).
 */
export async function unrelayedEvents(db: Db, limit = 500): Promise<string[]> {
  const rows = await db
    .selectFrom('outbox_events')
    .select('id')
    .where('relayed_at', 'is', null)
    .where('created_at', '<', sql<Date>`now() - interval '2 seconds'`)
    .orderBy('created_at')
    .limit(limit)
    .execute();
  return rows.map((r) => r.id);
}

/**
 * The trace of the research run each event announces (its payload's run_id: research.completed and
 * failed, and the insight.created or updated its aggregate step wrote), for the events whose run was
 * traced: what the relay makes an event's match job in when no job carries the trace any more.
 */
export async function runTracesOfEvents(db: Db, eventIds: readonly string[]): Promise<Map<string, string>> {
  if (eventIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('outbox_events as e')
    .innerJoin('research_runs as r', (join) => join.on('r.id', '=', sql<string>`e.payload->>'run_id'`))
    .select(['e.id', 'r.trace_id'])
    .where('e.id', 'in', [...new Set(eventIds)])
    .where('r.trace_id', 'is not', null)
    .execute();
  return new Map(rows.map((r) => [r.id, r.trace_id!]));
}

/** What webhook matching and bodies need of an insight (read as JSON, so no timestamps). */
export type AnnouncedInsight = Pick<
  Selectable<InsightsTable>,
  | 'id'
  | 'title'
  | 'idea'
  | 'keywords'
  | 'category'
  | 'source'
  | 'overall_score'
  | 'confidence'
  | 'dimension_scores'
  | 'summary'
  | 'trend_class'
  | 'owner_account_id'
  | 'provider'
  | 'data_from'
  | 'data_as_of'
  | 'publisher_account_id'
>;

export type EventWithInsight = Selectable<OutboxEventsTable> & { insight: AnnouncedInsight | null };

/** Answers in the order asked; undefined for an event that does not exist. */
export async function loadEventsWithInsights(db: Db, ids: string[]): Promise<Array<EventWithInsight | undefined>> {
  const rows = await db
    .selectFrom('outbox_events as e')
    .selectAll('e')
    .select((eb) =>
      jsonObjectFrom(
        eb
          .selectFrom('insights as i')
          .select([
            'i.id',
            'i.title',
            'i.idea',
            'i.keywords',
            'i.category',
            'i.source',
            'i.overall_score',
            'i.confidence',
            'i.dimension_scores',
            'i.summary',
            'i.trend_class',
            'i.owner_account_id',
            'i.provider',
            'i.data_from',
            'i.data_as_of',
            'i.publisher_account_id',
          ])
          .whereRef('i.id', '=', 'e.insight_id'),
      ).as('insight'),
    )
    .where('e.id', 'in', [...new Set(ids)])
    .execute();
  const byId = new Map(rows.map((r) => [r.id, r as EventWithInsight]));
  return ids.map((id) => byId.get(id));
}
