// Finds (or starts) the Postgres and Redis this process should use: the
// configured URLs in production, the embedded defaults on a single machine.
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../config.js';
import { createDb, describeConnectionError, pingDatabase, type Db } from '../db/connection.js';
import { startEmbeddedPostgres } from '../db/embedded-postgres.js';
import type { Logger } from '../logger.js';
import { createRedis, waitForRedis, type Redis, type RedisTarget } from '../redis/connection.js';
import { ensureLocalRedis } from '../redis/embedded-redis.js';
import { redisKeys, type RedisKeys } from '../redis/keys.js';
import { startTracing } from '../observability/tracing.js';

export interface Resources {
  db: Db;
  /** The replica the API reads from (DATABASE_READ_URL), when there is one: web processes only. */
  readDb?: Db;
  databaseUrl: string;
  embeddedPostgres: boolean;
  redis: Redis;
  /** Where Redis is (one server, or a cluster's seed nodes). */
  redisTarget: RedisTarget;
  redisKeys: RedisKeys;
  /** A new connection to the same Redis: 'worker' waits through outages (BullMQ, subscribers), 'client' fails fast. */
  connectRedis(role: 'client' | 'worker'): Redis;
  close(): Promise<void>;
}

interface EmbeddedMarker {
  url: string;
  pid: number;
  /** Its process stopped it: the next start serves on its port again. */
  stopped?: boolean;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * PGlite owns its data folder exclusively. The process that starts it writes a
 * marker with its loopback URL; later processes (the CLI while `npm start`
 * runs) connect to that URL instead of opening the files a second time.
 */
async function resolveEmbeddedPostgres(config: Config, logger: Logger, serve: boolean) {
  const markerPath = path.join(config.dataDir, 'embedded-postgres.json');
  let previousPort = 0;
  try {
    const marker = JSON.parse(await readFile(markerPath, 'utf8')) as EmbeddedMarker;
    previousPort = Number(new URL(marker.url).port) || 0;
    if (marker.stopped !== true && marker.pid !== process.pid && isAlive(marker.pid)) {
      const probe = createDb(marker.url, { maxConnections: 1 });
      try {
        await pingDatabase(probe);
      } catch {
        await probe.destroy();
        throw new Error('stale');
      }
      if (serve) {
        // A second `npm start` would run a second set of workers and schedulers on the first one's
        // database, and its web server would fight for the port: say so instead of sharing silently.
        await probe.destroy();
        throw new SecondStartError(
          `Another \`npm start\` (pid ${marker.pid}) is running in this folder and serves its embedded Postgres (${config.dataDir}). Use that one (its banner shows the URL and key), stop it first (Ctrl-C in its terminal, or kill ${marker.pid}), or give this one its own DATABASE_URL and REDIS_URL.`,
        );
      }
      return { url: marker.url, stop: async () => {}, probe };
    }
  } catch (error) {
    if (error instanceof SecondStartError) throw error;
    // No marker, or a stale one: start our own.
  }
  await mkdir(config.dataDir, { recursive: true });
  // On the port it had last time where it is free: a process still connected to it (a web process,
  // a CLI waiting) reconnects when it is back, instead of holding an address nothing answers on.
  const embedded = await startEmbeddedPostgres(path.join(config.dataDir, 'pglite'), previousPort);
  logger.debug({ url: embedded.url }, 'embedded Postgres started');
  if (serve) await writeFile(markerPath, JSON.stringify({ url: embedded.url, pid: process.pid }));
  return {
    url: embedded.url,
    probe: undefined,
    stop: async () => {
      // Kept, marked stopped: the next start serves on the same port, where connected processes look again.
      if (serve) await writeFile(markerPath, JSON.stringify({ url: embedded.url, pid: process.pid, stopped: true }));
      await embedded.stop();
    },
  };
}

/** `npm start` found another one serving this folder's embedded Postgres. */
export class SecondStartError extends Error {
  override name = 'SecondStartError';
}

export interface OpenOptions {
  /** The process's role (web, worker, start, cli): its Postgres connections carry it as application_name "si-<role>". */
  role?: 'web' | 'worker' | 'start' | 'cli' | 'bench';
  /** Long-running processes announce their embedded Postgres so the CLI can share it. */
  serveEmbedded?: boolean;
}

export async function openResources(config: Config, logger: Logger, options: OpenOptions = {}): Promise<Resources> {
  const closers: Array<() => Promise<void>> = [];
  // The statement that meets the broken connection fails and is retried; this is only the log line.
  const onConnectionError = (error: Error) => logger.warn({ err: error }, 'Postgres connection lost');
  const applicationName = `si-${options.role ?? 'cli'}`;
  try {
    // Off unless OTEL_EXPORTER_OTLP_ENDPOINT is set; on, the spans still buffered are sent after the rest has closed.
    const tracing = await startTracing(config.tracing);
    closers.push(() => tracing.shutdown());
    let databaseUrl = config.database.url;
    let db: Db;
    const embeddedPostgres = databaseUrl === undefined;
    if (databaseUrl === undefined) {
      const embedded = await resolveEmbeddedPostgres(config, logger, options.serveEmbedded ?? false);
      closers.push(embedded.stop);
      databaseUrl = embedded.url;
      db = embedded.probe ?? createDb(databaseUrl, { maxConnections: 1, onConnectionError, applicationName });
    } else {
      db = createDb(databaseUrl, { maxConnections: config.database.poolSize, onConnectionError, applicationName });
    }
    closers.unshift(() => db.destroy());
    try {
      await pingDatabase(db);
    } catch (error) {
      throw new Error(describeConnectionError(databaseUrl, error));
    }
    // A replica is for the API's reads; it may be away at start (reads then go to the primary).
    let readDb: Db | undefined;
    if (config.database.readUrl && options.role === 'web') {
      const replica = createDb(config.database.readUrl, {
        maxConnections: config.database.poolSize,
        onConnectionError,
        applicationName: `${applicationName}-read`,
      });
      closers.unshift(() => replica.destroy());
      readDb = replica;
    }

    let redisTarget: RedisTarget;
    if (config.redis.clusterNodes) redisTarget = { cluster: config.redis.clusterNodes };
    else if (config.redis.url !== undefined) redisTarget = { url: config.redis.url };
    else {
      const local = await ensureLocalRedis(config.dataDir);
      closers.push(local.stop);
      redisTarget = { url: local.url };
    }
    const redis = createRedis(redisTarget, 'client');
    redis.on('error', (error) => logger.debug({ err: error }, 'redis connection error'));
    closers.unshift(async () => {
      redis.disconnect();
    });
    await waitForRedis(redis, redisTarget);

    return {
      db,
      ...(readDb ? { readDb } : {}),
      databaseUrl,
      embeddedPostgres,
      redis,
      redisTarget,
      redisKeys: redisKeys(config.redis.prefix),
      connectRedis: (role) => createRedis(redisTarget, role),
      async close() {
        for (const close of closers) await close().catch(() => {});
      },
    };
  } catch (error) {
    for (const close of closers) await close().catch(() => {});
    throw error;
  }
}
