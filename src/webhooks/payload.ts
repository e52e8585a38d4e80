// The JSON body receivers get: the insight's summary, scores and links (< 20 KB);
// for research.completed and research.failed, the run (what was asked, how it
// ended, its links) with the insight it made, if any.
import type { Selectable } from 'kysely';
import type { OutboxEventsTable } from '../db/database.js';
import { insightFieldsOf } from '../domain/insight-fields.js';
import type { AnnouncedInsight } from './event.repository.js';

function insightData(event: Selectable<OutboxEventsTable>, insight: AnnouncedInsight, baseUrl: string) {
  // Events recorded before migration 0021 read their insight now, so every body carries these.
  const facts = {
    ...insight,
    provider: insight.provider ?? null,
    data_from: insight.data_from ?? null,
    data_as_of: insight.data_as_of ?? null,
  };
  return {
    // As the API answers the insight, its links absolute: a receiver has no request to resolve them against.
    ...insightFieldsOf(facts, baseUrl),
    dimension_scores: insight.dimension_scores,
    ...(event.type === 'insight.updated' ? { previous_score: (event.payload as { previous_score?: number }).previous_score ?? null } : {}),
  };
}

interface RunEventPayload {
  run_id: string;
  idea: string;
  geo: string | null;
  status: string;
  insight_id: string | null;
  failed_step: number | null;
}

export function webhookBody(event: Selectable<OutboxEventsTable>, insight: AnnouncedInsight | null | undefined, baseUrl: string): string {
  let data: unknown;
  if (event.type === 'research.completed' || event.type === 'research.failed') {
    const run = event.payload as unknown as RunEventPayload;
    data = {
      run_id: run.run_id,
      idea: run.idea,
      geo: run.geo,
      status: run.status,
      failed_step: run.failed_step,
      links: { run: `${baseUrl}/api/research-runs/${run.run_id}`, events: `${baseUrl}/api/research-runs/${run.run_id}/events` },
      insight: insight ? insightData(event, insight, baseUrl) : null,
    };
  } else {
    data = insight ? insightData(event, insight, baseUrl) : event.payload;
  }
  return JSON.stringify({ type: event.type, timestamp: event.created_at.toISOString(), data });
}
