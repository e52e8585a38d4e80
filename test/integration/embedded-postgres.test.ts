// The embedded default (PGlite on a loopback socket) runs the same pg + kysely
// code path: migrations, upserts, the list query; and it serves every process
// of a single machine at once (npm start, web processes, CLI commands).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Db } from '../../src/db/connection.js';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../src/db/embedded-postgres.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { listInsights } from '../../src/insights/insight.repository.js';
import { insertInsight } from '../support/fixtures.js';
import { until } from '../support/pipeline.js';

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

  it('accepts a connection from each of a dozen processes holding theirs open, as npm start, web processes and CLI commands do', async () => {
    // Each process has a pool of one connection, kept open while idle; a
    // connection refused by the server reads "Connection terminated unexpectedly".
    const processes = Array.from({ length: 12 }, () => createDb(embedded.url, { maxConnections: 1 }));
    try {
      const answers = await Promise.all(
        processes.map((p, i) => sql<{ n: number }>`select ${i}::int as n`.execute(p).then((r) => r.rows[0]!.n)),
      );
      expect(answers).toEqual(processes.map((_, i) => i));
      // All twelve still connected: a second round on the same sockets answers too.
      const again = await Promise.all(
        processes.map((p) => sql<{ n: number }>`select count(*)::int as n from insights`.execute(p).then((r) => r.rows[0]!.n)),
      );
      expect(again).toEqual(processes.map(() => 3));
    } finally {
      await Promise.all(processes.map((p) => p.destroy()));
    }
  });

  it('comes back on its port after a restart, and a process that was connected reconnects instead of failing for good', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'si-embedded-'));
    let first: EmbeddedPostgres | undefined = await startEmbeddedPostgres(dir, 0);
    const port = Number(new URL(first.url).port);
    const client = createDb(first.url, { maxConnections: 1 });
    let second: EmbeddedPostgres | undefined;
    try {
      await migrateToLatest(client);
      await first.stop();
      first = undefined;
      await expect(sql`select 1`.execute(client)).rejects.toThrow();
      second = await startEmbeddedPostgres(dir, port);
      expect(Number(new URL(second.url).port)).toBe(port);
      // The pool drops the dead connection and opens a new one to the same address.
      const n = await until(
        () =>
          sql<{ n: number }>`select count(*)::int as n from insights`
            .execute(client)
            .then((r) => r.rows[0]!.n)
            .catch(() => -1),
        (v) => v === 0,
        30_000,
        'the connected process to read again',
      );
      expect(n).toBe(0);
    } finally {
      await client.destroy();
      await first?.stop();
      await second?.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
