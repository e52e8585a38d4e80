// Every filter and sort of GET /api/insights is served by an index: EXPLAIN of
// the exact query the repository builds, over 20,000 rows.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATEGORY_VALUES, SOURCE_VALUES } from '../../src/domain/catalog.js';
import { DIMENSIONS } from '../../src/domain/scoring/dimensions.js';
import { TREND_CLASSES } from '../../src/domain/scoring/trend-class.js';
import { newId } from '../../src/domain/ids.js';
import { buildListQuery, type InsightFilter } from '../../src/insights/insight.repository.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { dimensionsWith } from '../support/fixtures.js';

let database: TestDatabase;
const ROWS = 20_000;

beforeAll(async () => {
  // Only a database: query plans need no Redis, so not a stack.
  database = await createTestDatabase();
  const dims = JSON.stringify(dimensionsWith(0.5));
  const words = ['coffee', 'bakery', 'fitness', 'tutoring', 'payments', 'travel', 'garden', 'security'];
  for (let start = 0; start < ROWS; start += 1000) {
    await database.db
      .insertInto('insights')
      .values(
        Array.from({ length: 1000 }, (_, j) => {
          const i = start + j;
          const id = newId('insight');
          return {
            id,
            idea_key: id,
            title: `${words[i % words.length]} idea ${i}`,
            // One idea in 400 mentions raclette: a rare word, which the GIN index finds fastest.
            idea: `an idea about ${words[(i * 7) % words.length]} and ${words[(i * 3) % words.length]}${i % 400 === 0 ? ' with raclette' : ''}`,
            primary_keyword: 'k',
            keywords: '[]',
            summary: '',
            status: 'active',
            category: CATEGORY_VALUES[i % CATEGORY_VALUES.length]!,
            source: SOURCE_VALUES[i % SOURCE_VALUES.length]!,
            overall_score: ((i * 7919) % 1000) / 1000,
            confidence: 0.5,
            dimensions: dims,
            dimension_scores: JSON.stringify(
              Object.fromEntries(DIMENSIONS.map((d, k) => [d, (i + k) % 11 === 0 ? null : (((i + k) * 7919) % 1000) / 1000])),
            ),
            trend_class: TREND_CLASSES[i % TREND_CLASSES.length]!,
            created_at: new Date(Date.UTC(2026, 0, 1) + i * 60_000),
          };
        }),
      )
      .execute();
  }
  await sql`analyze insights`.execute(database.db);
}, 120_000);
afterAll(() => database.destroy());

async function planOf(filter: InsightFilter): Promise<string> {
  const rows = await buildListQuery(database.db, filter).explain();
  return rows.map((r) => String(r['QUERY PLAN'])).join('\n');
}

const cases: Array<[string, InsightFilter, RegExp]> = [
  ['sort=score', { limit: 20, sort: 'score' }, /insights_rank_idx/],
  ['sort=overall', { limit: 20, sort: 'overall' }, /insights_score_idx/],
  ['min_score=0.8 sort=score', { limit: 20, sort: 'score', minScore: 0.8 }, /insights_(rank|score)_idx/],
  ['min_score=0.8 sort=overall', { limit: 20, sort: 'overall', minScore: 0.8 }, /insights_score_idx/],
  ['sort=newest', { limit: 20, sort: 'newest' }, /insights_created_idx/],
  ['sort=oldest', { limit: 20, sort: 'oldest' }, /insights_created_idx/],
  ['category sort=score', { limit: 20, sort: 'score', categories: ['finance'] }, /insights_category_rank_idx/],
  ['category sort=overall', { limit: 20, sort: 'overall', categories: ['finance'] }, /insights_category_score_idx/],
  ['category sort=newest', { limit: 20, sort: 'newest', categories: ['finance'] }, /insights_category_created_idx/],
  ['source sort=score', { limit: 20, sort: 'score', source: 'discovery' }, /insights_source_rank_idx/],
  ['source sort=overall', { limit: 20, sort: 'overall', source: 'discovery' }, /insights_source_score_idx/],
  ['source sort=newest', { limit: 20, sort: 'newest', source: 'discovery' }, /insights_(source_)?created_idx/],
  ['two categories', { limit: 20, sort: 'score', categories: ['finance', 'health'] }, /insights_(category_)?rank_idx/],
  ['score cursor', { limit: 20, sort: 'score', after: { sort: 'score', value: 1.5, id: 'ins_zzzzzzzzzzzzzzzzzzzz' } }, /insights_rank_idx/],
  // Every dimension as a sort, alone, with each older filter, and with a cursor.
  ...DIMENSIONS.flatMap((d): Array<[string, InsightFilter, RegExp]> => [
    [`sort=${d}`, { limit: 20, sort: d }, new RegExp(`insights_${d}_idx`)],
    [`sort=${d} category`, { limit: 20, sort: d, categories: ['finance'] }, /insights_\w+_idx/],
    [`sort=${d} source`, { limit: 20, sort: d, source: 'discovery' }, /insights_\w+_idx/],
    [`sort=${d} min_score`, { limit: 20, sort: d, minScore: 0.8 }, /insights_\w+_idx/],
    [
      `sort=${d} cursor`,
      { limit: 20, sort: d, after: { sort: d, value: 0.5, id: 'ins_zzzzzzzzzzzzzzzzzzzz' } },
      new RegExp(`insights_${d}_idx`),
    ],
  ]),
  // trend_class with every sort.
  ['trend_class sort=score', { limit: 20, sort: 'score', trendClasses: ['rising'] }, /insights_trend_class_rank_idx/],
  ['trend_class sort=newest', { limit: 20, sort: 'newest', trendClasses: ['rising'] }, /insights_trend_class_created_idx/],
  ['trend_class sort=oldest', { limit: 20, sort: 'oldest', trendClasses: ['rising'] }, /insights_trend_class_created_idx/],
  ['two trend classes sort=score', { limit: 20, sort: 'score', trendClasses: ['rising', 'exploding'] }, /insights_(trend_class_)?rank_idx/],
  ...DIMENSIONS.map((d): [string, InsightFilter, RegExp] => [
    `trend_class sort=${d}`,
    { limit: 20, sort: d, trendClasses: ['peaked'] },
    /insights_\w+_idx/,
  ]),
  // q= with every sort: a rare word is found through the GIN index; for a common one,
  // walking the sort's index and checking each row stops sooner, and the planner says so.
  ...(['score', 'newest', 'oldest', ...DIMENSIONS] as const).flatMap((sort): Array<[string, InsightFilter, RegExp]> => [
    [`q (rare) sort=${sort}`, { limit: 20, sort, text: 'raclette' }, /insights_search_idx/],
    [`q (common) sort=${sort}`, { limit: 20, sort, text: 'tutoring payments' }, /insights_\w+_idx/],
  ]),
  [
    'q with trend_class and cursor',
    {
      limit: 20,
      sort: 'momentum',
      text: 'garden',
      trendClasses: ['stable'],
      after: { sort: 'momentum', value: 0.4, id: 'ins_zzzzzzzzzzzzzzzzzzzz' },
    },
    /insights_\w+_idx/,
  ],
];

describe('list queries use their index', () => {
  it.each(cases)('%s', async (_name, filter, index) => {
    const plan = await planOf(filter);
    expect(plan, plan).toMatch(index);
    expect(plan, plan).not.toMatch(/Seq Scan/);
  });
});
