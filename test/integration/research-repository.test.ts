// The one-statement paths a research run takes once per run: taking the run
// up (step 1), finding the insight it updates (step 6), writing the insight
// (step 40).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Source } from '../../src/domain/catalog.js';
import { newId } from '../../src/domain/ids.js';
import { findInsightForIdea, upsertInsightRow } from '../../src/insights/insight.repository.js';
import { claimRun, createRun, markRunFailed } from '../../src/research/run.repository.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { dimensionsWith } from '../support/fixtures.js';

let database: TestDatabase;
beforeAll(async () => {
  // Only a database: the repository touches no Redis, so not a stack.
  database = await createTestDatabase();
});
afterAll(async () => {
  await database.destroy();
});

const insight = (ideaKey: string, primaryKeyword: string, source: Source = 'research') =>
  upsertInsightRow(database.db, {
    id: newId('insight'),
    idea_key: ideaKey,
    title: ideaKey,
    idea: ideaKey,
    primary_keyword: primaryKeyword,
    keywords: [primaryKeyword],
    category: 'computers-electronics',
    source,
    overall_score: 0.5,
    confidence: 0.5,
    dimensions: dimensionsWith(0.5),
    summary: 's',
    status: 'active',
  });

describe('research run repository', () => {
  it('takes up a run only at its next step and while it is unfinished', async () => {
    const run = await createRun(database.db, {
      idea: 'claim me',
      ideaKey: 'claim me',
      hints: [],
      provider: 'synthetic',
      source: 'synthetic',
    });
    expect(await claimRun(database.db, run.id, 2)).toBeUndefined();
    expect(await claimRun(database.db, run.id, 1)).toMatchObject({ id: run.id, status: 'running', next_step: 1 });
    await markRunFailed(database.db, run.id, 1, 'boom');
    expect(await claimRun(database.db, run.id, 1)).toBeUndefined();
    expect(await claimRun(database.db, 'run_missing', 1)).toBeUndefined();
  });

  it('says whether the upsert created the insight or updated it (keeping its id)', async () => {
    const first = await insight('upsert idea', 'upsert');
    expect(first.created).toBe(true);
    const again = await insight('upsert idea', 'upsert');
    expect(again).toEqual({ id: first.id, created: false });
  });

  it('finds the same idea first, else another idea on the same primary keyword, never a demo one', async () => {
    const demo = await insight('demo idea', 'shared phrase', 'recorded-series');
    expect(await findInsightForIdea(database.db, 'new idea', 'shared phrase')).toBeUndefined();
    const other = await insight('other idea', 'shared phrase');
    expect(await findInsightForIdea(database.db, 'new idea', 'shared phrase')).toEqual({
      id: other.id,
      idea: 'other idea',
      sameIdea: false,
    });
    const same = await insight('new idea', 'different phrase');
    expect(await findInsightForIdea(database.db, 'new idea', 'shared phrase')).toEqual({ id: same.id, idea: 'new idea', sameIdea: true });
    // A demo insight still counts when it is the same idea.
    expect(await findInsightForIdea(database.db, 'demo idea', 'nothing')).toMatchObject({ id: demo.id, sameIdea: true });
  });
});
