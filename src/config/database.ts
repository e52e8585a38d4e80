// The database section: DATABASE_URL, its replica and the pool.
import { EnvReader } from './env-reader.js';

export interface DatabaseConfig {
  /** Unset means: start the embedded Postgres (PGlite) under dataDir. */
  readonly url: string | undefined;
  /** A streaming replica web processes read from, once it has replayed what a response needs (see db/read-router.ts). */
  readonly readUrl: string | undefined;
  /** Connections per process. 1 when the URL points at an embedded (PGlite) server: it has one session. */
  readonly poolSize: number;
}

export function loadDatabaseSection(read: EnvReader): DatabaseConfig {
  const section = {
    url: read.url('DATABASE_URL', ['postgres:', 'postgresql:']),
    readUrl: read.url('DATABASE_READ_URL', ['postgres:', 'postgresql:']),
    poolSize: read.integer('DATABASE_POOL_SIZE', 10, 1, 200),
  };
  read.check(
    section.readUrl === undefined || section.url !== undefined,
    'DATABASE_READ_URL needs DATABASE_URL (the primary it replicates); the embedded Postgres has no replica',
  );
  return Object.freeze(section);
}
