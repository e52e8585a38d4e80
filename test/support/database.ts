import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { inject } from 'vitest';
import { createDb, type Db } from '../../src/db/connection.js';
import { startEmbeddedPostgres } from '../../src/db/embedded-postgres.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { withDatabase } from './global-setup.js';

export interface TestDatabase {
  db: Db;
  url: string;
  /** Environment a child process needs to use this database safely (pool size 1 for the embedded server). */
  env: Record<string, string>;
  destroy(): Promise<void>;
}

/** A private, migrated database for one test file. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const adminUrl = process.env.DATABASE_URL;
  const template = inject('templateDatabase');
  if (adminUrl && template) {
    const name = `si_test_${randomBytes(6).toString('hex')}`;
    const admin = createDb(adminUrl, { maxConnections: 1 });
    // Another file cloning the same template at the same moment makes Postgres
    // refuse ("source database is being accessed"): retry briefly.
    for (let attempt = 0; ; attempt += 1) {
      try {
        await sql`create database ${sql.id(name)} template ${sql.id(template)}`.execute(admin);
        break;
      } catch (error) {
        if (attempt >= 20 || !/being accessed/.test(String(error))) throw error;
        await new Promise((r) => setTimeout(r, 100 + Math.random() * 200));
      }
    }
    const url = withDatabase(adminUrl, name);
    const db = createDb(url);
    return {
      db,
      url,
      env: { DATABASE_URL: url },
      async destroy() {
        await db.destroy();
        await sql`drop database if exists ${sql.id(name)} with (force)`.execute(admin);
        await admin.destroy();
      },
    };
  }
  const embedded = await startEmbeddedPostgres(undefined, 0);
  const db = createDb(embedded.url, { maxConnections: 1 });
  await migrateToLatest(db);
  return {
    db,
    url: embedded.url,
    env: { DATABASE_URL: embedded.url, DATABASE_POOL_SIZE: '1' },
    async destroy() {
      await db.destroy();
      await embedded.stop();
    },
  };
}
