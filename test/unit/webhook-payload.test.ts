// A webhook's body shows the insight as the API does (domain/insight-fields.ts builds both): the same fields, the
// same links, only absolute, so a receiver can follow each one.
import { describe, expect, it } from 'vitest';
import type { Selectable } from 'kysely';
import type { OutboxEventsTable } from '../../src/db/database.js';
import { CATEGORY_VALUES } from '../../src/domain/catalog.js';
import { toInsightSummaryDto } from '../../src/views/insight.view.js';
import type { InsightListRow } from '../../src/insights/insight.repository.js';
import type { AnnouncedInsight } from '../../src/webhooks/event.repository.js';
import { webhookBody } from '../../src/webhooks/payload.js';

const insight: AnnouncedInsight = {
  id: 'ins_1',
  title: 'CRM for dentists',
  idea: 'crm for dentists',
  keywords: ['dental crm'],
  category: CATEGORY_VALUES[0]!,
  source: 'research',
  overall_score: 71,
  confidence: 0.8,
  dimension_scores: { momentum: 64 },
  summary: 'Rising.',
  trend_class: 'rising',
  owner_account_id: null,
  provider: 'synthetic',
  data_from: '2025-03-01',
  data_as_of: '2026-02-28',
  publisher_account_id: null,
} as AnnouncedInsight;

const event = (type: string, payload: Record<string, unknown> = {}) =>
  ({
    id: 'evt_1',
    type,
    insight_id: 'ins_1',
    payload,
    created_at: new Date('2026-03-01T00:00:00Z'),
    relayed_at: null,
  }) as Selectable<OutboxEventsTable>;

describe("a webhook's body", () => {
  it("carries the insight's fields as the API answers them, its links absolute under the base URL", () => {
    const body = JSON.parse(webhookBody(event('insight.created'), insight, 'https://insights.example')) as {
      data: Record<string, unknown>;
    };
    const api = toInsightSummaryDto({
      ...insight,
      primary_keyword: 'dental crm',
      status: 'active',
      geo: 'US',
      created_at: new Date(),
      updated_at: new Date(),
    } as unknown as InsightListRow);
    for (const field of [
      'id',
      'title',
      'category',
      'source',
      'overall_score',
      'confidence',
      'provider',
      'provenance',
      'data_from',
      'data_as_of',
      'trend_class',
      'trend_class_hit_rate',
      'summary',
      'dimension_scores',
    ] as const)
      expect(body.data[field], field).toEqual(api[field]);
    expect(body.data.links).toEqual(
      Object.fromEntries(Object.entries(api.links).map(([name, link]) => [name, `https://insights.example${link}`])),
    );
    expect(body.data.links).toMatchObject({
      chart: 'https://insights.example/api/insights/ins_1/chart.svg',
      methodology: 'https://insights.example/api/methodology',
    });
    expect(body.data).not.toHaveProperty('previous_score');
  });

  it('says the previous score of an updated insight, and the run with its insight for a finished run', () => {
    const updated = JSON.parse(webhookBody(event('insight.updated', { previous_score: 60 }), insight, 'https://x.example')) as {
      data: { previous_score: number };
    };
    expect(updated.data.previous_score).toBe(60);
    const run = { run_id: 'run_1', idea: 'crm for dentists', geo: 'US', status: 'succeeded', insight_id: 'ins_1', failed_step: null };
    const done = JSON.parse(webhookBody(event('research.completed', run), insight, 'https://x.example')) as {
      data: { links: unknown; insight: { id: string; links: { self: string } } };
    };
    expect(done.data.links).toEqual({
      run: 'https://x.example/api/research-runs/run_1',
      events: 'https://x.example/api/research-runs/run_1/events',
    });
    expect(done.data.insight.links.self).toBe('https://x.example/api/insights/ins_1');
  });
});
