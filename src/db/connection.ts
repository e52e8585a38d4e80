import { Kysely, PostgresDialect, sql } from 'kysely';
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
  /** Told about every connection that breaks (server restart, terminated backend, network). */
  onConnectionError?: (error: Error) => void;
  /** Shown in pg_stat_activity, so an operator can tell the web, worker and CLI connections apart. */
  applicationName?: string;
}

export function createDb(url: string, options: DbOptions = {}): Db {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.maxConnections ?? 10,
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
    ...(options.applicationName ? { application_name: options.applicationName } : {}),
  });
  const onError = options.onConnectionError ?? (() => {});
  // A pg Client emits 'error' when its connection breaks while no query is
  // running on it. pg-pool listens only while the client is idle in the pool
  // and removes its listener on checkout, so a client that is checked out
  // between statements (a transaction awaiting Redis or JavaScript work) would
  // otherwise turn a Postgres restart into an uncaught exception. Every client
  // gets a listener for its whole life: the error then surfaces as the next
  // statement's rejection, and pg-pool discards the broken client on release.
  pool.on('connect', (client) => client.on('error', onError));
  pool.on('error', onError);
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
}

/** Resolves once Postgres answers a trivial query (start-up and readiness checks). */
export async function pingDatabase(db: Db): Promise<void> {
  await sql`select 1`.execute(db);
}

/** The primary's current WAL position, or '' where there is none (the embedded Postgres). */
export async function currentLsn(db: Db): Promise<string> {
  try {
    const { rows } = await sql<{ lsn: string }>`select pg_current_wal_lsn()::text as lsn`.execute(db);
    return rows[0]?.lsn ?? '';
  } catch {
    return '';
  }
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
