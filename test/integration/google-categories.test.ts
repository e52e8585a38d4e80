// Categories follow Google's tree (docs/categories.md): a database of the
// version before keeps its insights and webhook criteria, re-filed under the
// new slugs; the API lists Google's ids and refuses a retired slug naming its
// replacement.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateTo } from '../../src/db/migrate.js';
import { CATEGORY_VALUES } from '../../src/domain/catalog.js';
import { bearer, createTestApp, type TestApp } from '../support/app.js';
import { createTestDatabase } from '../support/database.js';

const BEFORE = '2026-11-27T0016-search-volume';
const GOOGLE_CATEGORIES = '2026-11-27T0017-google-categories';

describe('migration 2026-11-27T0017-google-categories', () => {
  it('moves every old slug to its Google category, in insights and in webhook criteria, and back down', async () => {
    // Only a database, taken back to an older migration: no Redis, so not a stack.
    const old = await createTestDatabase();
    try {
      await migrateTo(old.db, BEFORE);
      const slugs = ['ai-ml', 'devtools', 'fintech', 'productivity', 'health', 'home-living', 'uncategorized'];
      for (const [i, category] of slugs.entries()) {
        await sql`insert into insights (id, idea_key, title, idea, primary_keyword, category, source, overall_score, confidence, dimensions)
                  values (${`ins_${i}`}, ${`key ${i}`}, 't', 'i', 'k', ${category}, 'research', 0.5, 0.5, '{}'::jsonb)`.execute(old.db);
      }
      const subscription = (id: string, categories: string[]) =>
        sql`insert into webhook_subscriptions (id, url, secret_encrypted, categories, updated_at)
            values (${id}, 'https://example.com/h', 'x', ${JSON.stringify(categories)}::jsonb, '2026-01-01')`.execute(old.db);
      await subscription('whs_old', ['ai-ml', 'devtools', 'health']);
      await subscription('whs_any', []);

      await migrateTo(old.db, GOOGLE_CATEGORIES);
      const categories = async () =>
        (await old.db.selectFrom('insights').select(['id', 'category']).orderBy('id').execute()).map((r) => r.category);
      expect(await categories()).toEqual([
        'computers-electronics',
        'computers-electronics',
        'finance',
        'computers-electronics',
        'health',
        'home-garden',
        'uncategorized',
      ]);
      const subs = await old.db.selectFrom('webhook_subscriptions').select(['id', 'categories', 'updated_at']).orderBy('id').execute();
      // Two old slugs of one Google category are named once; a list left alone keeps its updated_at.
      expect(subs.map((s) => [s.id, [...s.categories].sort()])).toEqual([
        ['whs_any', []],
        ['whs_old', ['computers-electronics', 'health']],
      ]);
      expect(subs[0]!.updated_at.toISOString()).toBe('2026-01-01T00:00:00.000Z');
      expect(subs[1]!.updated_at.toISOString()).not.toBe('2026-01-01T00:00:00.000Z');

      // A category the old list did not have goes down as uncategorized.
      await old.db.updateTable('insights').set({ category: 'games' }).where('id', '=', 'ins_6').execute();
      await migrateTo(old.db, BEFORE);
      expect(await categories()).toEqual(['devtools', 'devtools', 'fintech', 'devtools', 'health', 'home-living', 'uncategorized']);
    } finally {
      await old.destroy();
    }
  });
});

describe('the API', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  }, 60_000);
  afterAll(() => t.close());

  it("lists Google's categories with their ids", async () => {
    const res = await t.app.inject({ url: '/api/categories', headers: bearer(await t.key()) });
    expect(res.statusCode, res.body).toBe(200);
    const data: Array<{ id: string; description: string; google_id: number | null }> = res.json().data;
    expect(data.map((c) => c.id)).toEqual(CATEGORY_VALUES);
    expect(data.find((c) => c.id === 'food-drink')).toMatchObject({ description: 'Food & Drink', google_id: 71 });
    expect(data.find((c) => c.id === 'uncategorized')).toMatchObject({ google_id: null });
  });

  it('refuses a retired slug in webhook criteria, naming the slug to use', async () => {
    const a = await t.webhookKey('pro');
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/webhooks',
      headers: { ...bearer(a.key), 'content-type': 'application/json' },
      payload: JSON.stringify({ url: 'http://127.0.0.1:9/x', categories: ['finance', 'fintech'] }),
    });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(res.json().detail).toMatch(/categories has a retired value "fintech".*use "finance" \(Google category 7, Finance\)/);
    expect(res.json().invalid_params[0]).toMatchObject({ name: 'categories', allowed: CATEGORY_VALUES });
  });
});
