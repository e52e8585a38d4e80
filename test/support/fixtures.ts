// Builders for test rows. Scores here are inputs to API tests, not claims.
import type { Db } from '../../src/db/connection.js';
import type { Category, Source } from '../../src/domain/catalog.js';
import { newId } from '../../src/domain/ids.js';
import { DIMENSIONS, type DimensionScores } from '../../src/domain/scoring/dimensions.js';
import { upsertInsight } from '../../src/insights/insight.repository.js';

export function dimensionsWith(score: number | null): DimensionScores {
  return Object.fromEntries(
    DIMENSIONS.map((d) => [d, { score, evidence: { fixture: true }, explanation: 'test fixture' }]),
  ) as unknown as DimensionScores;
}

export interface FixtureInsight {
  score: number;
  category?: Category;
  source?: Source;
  createdAt?: Date;
  title?: string;
}

export async function insertInsight(db: Db, f: FixtureInsight): Promise<string> {
  const id = newId('insight');
  await upsertInsight(db, {
    id,
    idea_key: `fixture:${id}`,
    title: f.title ?? `Fixture ${id}`,
    idea: `Fixture idea ${id}`,
    primary_keyword: 'fixture',
    keywords: ['fixture'],
    category: f.category ?? 'productivity',
    source: f.source ?? 'research',
    overall_score: f.score,
    confidence: 0.5,
    dimensions: dimensionsWith(f.score),
    summary: 'fixture',
    status: 'active',
  });
  if (f.createdAt) {
    await db.updateTable('insights').set({ created_at: f.createdAt }).where('id', '=', id).execute();
  }
  return id;
}
