import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DemoDataMissingError, lastWindowRescaled, readKeywordNames, seedDemo } from '../../src/demo/demo-seed.js';
import { DIMENSIONS } from '../../src/domain/scoring/dimensions.js';
import { assessMomentum } from '../../src/domain/scoring/momentum.js';
import { insightExplanationProblems } from '../../src/domain/scoring/explanation-check.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { DEMO_SERIES_DIR, demoSeries } from '../support/shared-data.js';

let database: TestDatabase;
beforeAll(async () => {
  // Only a database: the seed writes no Redis key, so not a stack.
  database = await createTestDatabase();
});
afterAll(() => database.destroy());

describe('insights seed --demo', () => {
  it("loads the repository's 48 named topics, whose 30 points are real rescaled windows of their series", async () => {
    const { inserted, named: namedCount } = await seedDemo(database.db, DEMO_SERIES_DIR);
    expect(inserted).toBe(48);
    expect(namedCount).toBe(48);
    const rows = await database.db.selectFrom('insights').selectAll().execute();
    expect(rows).toHaveLength(inserted);
    const series = await demoSeries();
    const names = await readKeywordNames(DEMO_SERIES_DIR);
    expect(names.get('/m/01245r')).toBe('Raclette');
    let named = 0;
    for (const row of rows) {
      // Recorded real series of 2020, not startup ideas: their own source, their real market, asked by name.
      expect(row).toMatchObject({
        source: 'recorded-series',
        geo: 'US',
        provider: null,
        data_from: '2020-04-28',
        data_as_of: '2020-07-26',
      });
      const topic = /\(Google topic (\/[mg]\/[^)]+)\)/.exec(row.idea)![1]!;
      const name = names.get(topic);
      if (name) named += 1;
      expect(row.title).toBe(`${name} — US search interest`);
      expect(row.primary_keyword).toBe(name);
      expect(row.keywords).toEqual([name]);
      expect(row.idea).toMatch(
        /^Recorded real US Google Trends interest in .*, 2020-04-28 to 2020-07-26 .*: a real series of 2020, not a startup idea$/,
      );
      const forecast = await database.db.selectFrom('forecasts').select('insight_id').where('insight_id', '=', row.id).executeTakeFirst();
      expect(forecast).toBeDefined();
      const points = await database.db
        .selectFrom('trend_points')
        .select(['date', 'value'])
        .where('insight_id', '=', row.id)
        .orderBy('date')
        .execute();
      expect(points).toHaveLength(30);
      const original = series.get(`gtab_US:${topic}`)!;
      expect(points).toEqual(lastWindowRescaled(original, 30).map((p) => ({ date: p.date, value: p.value })));
      // The stored score is what the domain code computes from those very points.
      const { momentum, trend } = assessMomentum({ days30: points, days90: lastWindowRescaled(original, 90) });
      expect(row.dimensions.momentum.score).toBe(momentum.score);
      expect(row.trend_class).toBe(trend?.trendClass ?? null);
      for (const d of DIMENSIONS.filter((d) => d !== 'momentum')) {
        expect(row.dimensions[d].score).toBeNull();
        expect(row.dimensions[d].explanation).toMatch(/needs/);
      }
      // No explanation says a number its evidence contradicts.
      expect(insightExplanationProblems(row.dimensions)).toEqual([]);
    }
    expect(named).toBe(rows.length);
  });

  it('is idempotent: seeding again updates, never duplicates', async () => {
    const before = await database.db.selectFrom('insights').select('id').orderBy('id').execute();
    await seedDemo(database.db, DEMO_SERIES_DIR);
    const after = await database.db.selectFrom('insights').select('id').orderBy('id').execute();
    expect(after).toEqual(before);
  });

  it('stops with a clear message when there is no data', async () => {
    const empty = await mkdtemp(path.join(os.tmpdir(), 'si-empty-'));
    await expect(seedDemo(database.db, empty)).rejects.toThrow(DemoDataMissingError);
    await expect(seedDemo(database.db, empty)).rejects.toThrow(/--from DIR/);
    await writeFile(path.join(empty, 'gtab-us-daily.csv'), 'wrong,header\n');
    await expect(seedDemo(database.db, empty)).rejects.toThrow(/header/);
  });
});
