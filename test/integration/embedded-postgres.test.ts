// The embedded default (PGlite on a loopback socket) runs the same pg + kysely
// code path: migrations, upserts, the list query.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Db } from '../../src/db/connection.js';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../src/db/embedded-postgres.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { listInsights } from '../../src/insights/insight.repository.js';
import { insertInsight } from '../support/fixtures.js';

let embedded: EmbeddedPostgres;
let db: Db;
beforeAll(async () => {
  embedded = await startEmbeddedPostgres(undefined, 0);
  db = createDb(embedded.url, { maxConnections: 1 });
});
afterAll(async () => {
  await db.destroy();
  await embedded.stop();
});

describe('embedded Postgres', () => {
  it('migrates idempotently and serves the list query', async () => {
    await migrateToLatest(db);
    const again = await migrateToLatest(db);
    expect(again.results).toEqual([]);
    for (const score of [0.2, 0.9, 0.5]) await insertInsight(db, { score });
    const { rows } = await listInsights(db, { limit: 2, sort: 'score' });
    expect(rows.map((r) => r.overall_score)).toEqual([0.9, 0.5]);
  });
});
