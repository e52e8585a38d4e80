// The JSON body receivers get: the insight's summary, scores and links (< 20 KB).
import type { Selectable } from 'kysely';
import type { OutboxEventsTable } from '../db/database.js';
import { trendClassFacts } from '../domain/scoring/trend-class.js';
import type { AnnouncedInsight } from './event.repository.js';

export function webhookBody(event: Selectable<OutboxEventsTable>, insight: AnnouncedInsight | null | undefined, baseUrl: string): string {
  const data = insight
    ? {
        id: insight.id,
        title: insight.title,
        category: insight.category,
        source: insight.source,
        overall_score: insight.overall_score,
        confidence: insight.confidence,
        dimension_scores: insight.dimension_scores,
        trend_class: insight.trend_class,
        trend_class_hit_rate: insight.trend_class ? trendClassFacts(insight.trend_class).hit_rate : null,
        summary: insight.summary,
        ...(event.type === 'insight.updated'
          ? { previous_score: (event.payload as { previous_score?: number }).previous_score ?? null }
          : {}),
        links: {
          self: `${baseUrl}/api/insights/${insight.id}`,
          trend_data: `${baseUrl}/api/insights/${insight.id}/trend-data`,
          forecast: `${baseUrl}/api/insights/${insight.id}/forecast`,
          research: `${baseUrl}/api/insights/${insight.id}/research`,
        },
      }
    : event.payload;
  return JSON.stringify({ type: event.type, timestamp: event.created_at.toISOString(), data });
}
