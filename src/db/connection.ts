import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Database } from './database.js';

// DATE columns come back as 'YYYY-MM-DD' text, not as a Date at local
// midnight (which shifts by a day in every timezone west of UTC).
pg.types.setTypeParser(pg.types.builtins.DATE, (value) => value);
// bigint counts (count(*)) fit comfortably in a double.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

export type Db = Kysely<Database>;

export interface DbOptions {
  /** Pool size. The embedded Postgres serialises everything on one session: use 1 there. */
  maxConnections?: number;
}

export function createDb(url: string, options: DbOptions = {}): Db {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.maxConnections ?? 10,
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
  });
  // An idle client losing its connection (Postgres restart) must not crash the process;
  // the pool drops it and the next query reconnects.
  pool.on('error', () => {});
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
}

/** A clear message for the most common startup failure. */
export function describeConnectionError(url: string, error: unknown): string {
  const safeUrl = (() => {
    try {
      const u = new URL(url);
      if (u.password) u.password = '***';
      return u.toString();
    } catch {
      return '(unparseable DATABASE_URL)';
    }
  })();
  const reason = error instanceof Error ? error.message : String(error);
  return `Postgres is not reachable at ${safeUrl} (${reason}) — start it, fix DATABASE_URL, or unset DATABASE_URL to use the embedded Postgres`;
}
