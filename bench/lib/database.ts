// A fresh, migrated Postgres database for one benchmark run, dropped at the end.
// Benchmarks need a real Postgres (DATABASE_URL, default the local test server).
import { sql } from 'kysely';
import { createDb, type Db } from '../../src/db/connection.js';
import { migrateToLatest } from '../../src/db/migrate.js';

export const ADMIN_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface BenchDatabase {
  url: string;
  db: Db;
  /** Closes `db`'s pool (once; later calls do nothing). */
  close(): Promise<void>;
  /** Closes the pool and drops the database. */
  drop(): Promise<void>;
}

export async function createBenchDatabase(bench: string, poolSize: number): Promise<BenchDatabase> {
  const admin = createDb(ADMIN_URL, { maxConnections: 1 });
  try {
    await sql`select 1`.execute(admin);
  } catch (error) {
    await admin.destroy();
    throw new Error(`bench:${bench} needs a real Postgres: set DATABASE_URL (tried ${ADMIN_URL}: ${(error as Error).message})`);
  }
  const name = `si_bench_${bench}_${process.pid}`;
  await sql`create database ${sql.id(name)}`.execute(admin);
  const u = new URL(ADMIN_URL);
  u.pathname = `/${name}`;
  const url = u.toString();
  const db = createDb(url, { maxConnections: poolSize });
  await migrateToLatest(db);
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await db.destroy();
  };
  return {
    url,
    db,
    close,
    async drop() {
      await close();
      await sql`drop database if exists ${sql.id(name)} with (force)`.execute(admin);
      await admin.destroy();
    },
  };
}
