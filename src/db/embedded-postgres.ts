// The embedded default for a single machine without DATABASE_URL: PGlite (a
// WASM build of real Postgres) persisted under .data/, served on a loopback
// port with pglite-socket so that the same `pg` code path runs as in production.
import { mkdir } from 'node:fs/promises';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

/** Processes (one pooled connection each) the embedded server accepts at once. */
export const EMBEDDED_MAX_CONNECTIONS = 128;

export interface EmbeddedPostgres {
  url: string;
  stop(): Promise<void>;
}

/**
 * @param dataDir a folder for the database files, or undefined for an in-memory database (tests).
 * @param port the port to serve on if it is free (0, or taken: any free port).
 */
export async function startEmbeddedPostgres(dataDir: string | undefined, port = 0): Promise<EmbeddedPostgres> {
  if (dataDir) await mkdir(dataDir, { recursive: true });
  const db = await PGlite.create(dataDir ? { dataDir } : {});
  // PGlite runs one session. The multiplexer accepts several sockets and queues
  // their statements onto that one session (a transaction's statements stay
  // together), so each process caps its pool at one connection (see createDb's
  // maxConnections). Every process of the machine holds one socket while idle:
  // npm start, each web process and each CLI command. A socket past the
  // server's cap is hung up on, which clients report only as "Connection
  // terminated unexpectedly", so the cap is far above what one machine runs.
  let server = new PGLiteSocketServer({ db, host: '127.0.0.1', port, maxConnections: EMBEDDED_MAX_CONNECTIONS });
  try {
    await server.start();
  } catch (error) {
    if (port === 0) throw error;
    server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: EMBEDDED_MAX_CONNECTIONS });
    await server.start();
  }
  const conn = server.getServerConn(); // "host:port"
  return {
    url: `postgres://postgres@${conn}/postgres?sslmode=disable`,
    async stop() {
      await server.stop();
      await db.close();
    },
  };
}
