// The fields of an insight that every answer showing one carries alike: the API's insight and list entry
// (src/views/insight.view.ts) and a webhook's body (src/webhooks/payload.ts), with its links. Here, below both,
// because webhooks/ may not import views/ (docs/internals.md, the floors). Links are relative for the API (the
// client resolves them against the URL it asked) and absolute in a webhook body (a receiver has nothing to
// resolve them against).
import type { Category, Source } from './catalog.js';
import { displayTitle, provenanceOf, type ProvenanceFacts } from './provenance.js';
import { trendClassFacts, type TrendClass } from './scoring/trend-class.js';

/** What an insight's shared fields are read from (a stored insight, or the one a webhook event announces). */
export interface InsightFacts extends ProvenanceFacts {
  id: string;
  title: string;
  category: Category;
  source: Source;
  overall_score: number;
  confidence: number;
  trend_class: TrendClass | null;
  summary: string;
}

/** Where the insight's other answers are: under `baseUrl` ('' for links relative to the API's origin). */
export function insightLinks(id: string, baseUrl = '') {
  const self = `${baseUrl}/api/insights/${id}`;
  return {
    self,
    trend_data: `${self}/trend-data`,
    forecast: `${self}/forecast`,
    research: `${self}/research`,
    chart: `${self}/chart.svg`,
    methodology: `${baseUrl}/api/methodology`,
  };
}

export function insightFieldsOf(row: InsightFacts, baseUrl = '') {
  const { kind, label, source } = provenanceOf(row);
  return {
    id: row.id,
    // As a person reads it: a simulated or recorded insight says so wherever its title is shown.
    title: displayTitle(row.title, row),
    category: row.category,
    source: row.source,
    overall_score: row.overall_score,
    confidence: row.confidence,
    provider: row.provider,
    provenance: { kind, label, source },
    data_from: row.data_from,
    data_as_of: row.data_as_of,
    trend_class: row.trend_class,
    trend_class_hit_rate: row.trend_class ? trendClassFacts(row.trend_class).hit_rate : null,
    summary: row.summary,
    links: insightLinks(row.id, baseUrl),
  };
}
