// Builders for test rows. Scores here are inputs to API tests, not claims.
import type { Db } from '../../src/db/connection.js';
import type { Category, Source } from '../../src/domain/catalog.js';
import { newId } from '../../src/domain/ids.js';
import { DIMENSIONS, type Dimension, type DimensionScores } from '../../src/domain/scoring/dimensions.js';
import type { TrendClass } from '../../src/domain/scoring/trend-class.js';
import { upsertInsight } from '../../src/insights/insight.repository.js';

export function dimensionsWith(score: number | null): DimensionScores {
  return Object.fromEntries(
    DIMENSIONS.map((d) => [d, { score, evidence: { fixture: true }, explanation: 'test fixture' }]),
  ) as unknown as DimensionScores;
}

function fixtureDimensions(f: FixtureInsight): DimensionScores {
  const dims = dimensionsWith(f.score);
  for (const [d, score] of Object.entries(f.dimensionScores ?? {}))
    dims[d as Dimension] = { ...dims[d as Dimension], score: score ?? null };
  if (f.trendClass)
    dims.momentum = { ...dims.momentum, evidence: { ...dims.momentum.evidence, trend_class: f.trendClass, trend_class_reason: 'fixture' } };
  return dims;
}

export interface FixtureInsight {
  score: number;
  category?: Category;
  source?: Source;
  createdAt?: Date;
  title?: string;
  idea?: string;
  keywords?: string[];
  /** Each dimension's score, where it differs from `score`. */
  dimensionScores?: Partial<Record<Dimension, number | null>>;
  trendClass?: TrendClass;
}

export async function insertInsight(db: Db, f: FixtureInsight): Promise<string> {
  const id = newId('insight');
  await upsertInsight(db, {
    id,
    idea_key: `fixture:${id}`,
    title: f.title ?? `Fixture ${id}`,
    idea: f.idea ?? `Fixture idea ${id}`,
    primary_keyword: f.keywords?.[0] ?? 'fixture',
    keywords: f.keywords ?? ['fixture'],
    category: f.category ?? 'computers-electronics',
    source: f.source ?? 'research',
    overall_score: f.score,
    confidence: 0.5,
    dimensions: fixtureDimensions(f),
    summary: 'fixture',
    status: 'active',
  });
  if (f.createdAt) {
    await db.updateTable('insights').set({ created_at: f.createdAt }).where('id', '=', id).execute();
  }
  return id;
}
