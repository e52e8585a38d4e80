// Outbox events with the insight they announce, read in one query for many
// events at once (the match and deliver jobs batch their reads; see Batcher).
import type { Selectable } from 'kysely';
import { jsonObjectFrom } from 'kysely/helpers/postgres';
import type { Db } from '../db/connection.js';
import type { InsightsTable, OutboxEventsTable } from '../db/database.js';

/** What webhook matching and bodies need of an insight (read as JSON, so no timestamps). */
export type AnnouncedInsight = Pick<
  Selectable<InsightsTable>,
  'id' | 'title' | 'idea' | 'keywords' | 'category' | 'source' | 'overall_score' | 'confidence' | 'dimension_scores' | 'summary' | 'trend_class'
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
          .select(['i.id', 'i.title', 'i.idea', 'i.keywords', 'i.category', 'i.source', 'i.overall_score', 'i.confidence', 'i.dimension_scores', 'i.summary', 'i.trend_class'])
          .whereRef('i.id', '=', 'e.insight_id'),
      ).as('insight'),
    )
    .where('e.id', 'in', [...new Set(ids)])
    .execute();
  const byId = new Map(rows.map((r) => [r.id, r as EventWithInsight]));
  return ids.map((id) => byId.get(id));
}
