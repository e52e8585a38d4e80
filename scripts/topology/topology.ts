// The scaled-out topology on one machine, for a test and for a person to try:
// a 3-master Redis Cluster, a Postgres primary with a streaming replica, and
// the Procfile's processes (2 web, 2 workers) pointed at them exactly as in
// production (REDIS_CLUSTER_NODES, DATABASE_URL, DATABASE_READ_URL).
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import { NO_ENV_FILE } from '../../src/config.js';
import { createDb } from '../../src/db/connection.js';
import { freePort } from '../lib/free-port.js';
import { LocalPostgres, postgresBinDir } from '../lib/local-postgres.js';
import { LocalRedisCluster } from '../lib/local-redis-cluster.js';
import { ServiceProcess } from '../lib/service-process.js';

const exec = promisify(execFile);

export interface Topology {
  cluster: LocalRedisCluster;
  primary: LocalPostgres;
  replica: LocalPostgres;
  env: Record<string, string>;
  webs: ServiceProcess[];
  workers: ServiceProcess[];
  webUrls: string[];
  /** Runs the `insights` CLI against the topology. */
  cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }>;
  /** Starts a worker again (after one was killed). */
  startWorker(): Promise<ServiceProcess>;
  stop(): Promise<Array<{ process: string; code: number | null }>>;
}

const ROOT = (() => {
  const here = path.dirname(new URL(import.meta.url).pathname);
  const up = path.resolve(here, '../..');
  return path.basename(up) === 'dist' ? path.resolve(up, '..') : up;
})();

/** Checks that the servers' programs are installed, naming what to install when one is not. */
export async function requireServerPrograms(): Promise<void> {
  for (const program of ['redis-server', 'redis-cli']) {
    await exec(program, ['--version']).catch(() => {
      throw new Error(`${program} not found on PATH — install Redis 7 (apt-get install redis-server; macOS: brew install redis)`);
    });
  }
  const bin = postgresBinDir(); // throws, saying what to install, without initdb
  if (!existsSync(path.join(bin, 'pg_basebackup')))
    throw new Error(`pg_basebackup not found beside initdb in ${bin} — install the Postgres client programs`);
}

export interface DataTier {
  cluster: LocalRedisCluster;
  primary: LocalPostgres;
  /** Started by startReplica (after the schema, or at once). */
  replica: LocalPostgres | undefined;
  startReplica(): Promise<LocalPostgres>;
}

/**
 * The servers of the scaled-out topology: a 3-master Redis Cluster
 * (`replicasPerMaster` replicas each), a Postgres primary holding `database`,
 * and (unless `replicaAfterRelease`, for a caller that migrates first) its
 * streaming replica. Each server's stop is handed to `onStarted` as soon as it
 * runs, so a caller stopped half-way stops what did start.
 */
export async function startDataTier(
  options: { database: string; replicasPerMaster: number; replicaAfterRelease?: boolean },
  onStarted: (stop: () => Promise<void>) => void,
): Promise<DataTier> {
  await requireServerPrograms();
  const cluster = await LocalRedisCluster.start(3, options.replicasPerMaster);
  onStarted(() => cluster.stop());
  const primary = await LocalPostgres.init();
  onStarted(() => primary.destroy());
  await primary.start();
  const bootstrap = createDb(primary.url, { maxConnections: 1 });
  await sql`create database ${sql.id(options.database)}`.execute(bootstrap);
  await bootstrap.destroy();
  const tier: DataTier = {
    cluster,
    primary,
    replica: undefined,
    async startReplica() {
      const replica = await primary.startReplica();
      onStarted(() => replica.destroy());
      tier.replica = replica;
      return replica;
    },
  };
  if (!options.replicaAfterRelease) await tier.startReplica();
  return tier;
}

export async function startTopology(
  options: { webs?: number; workers?: number; extraEnv?: Record<string, string> } = {},
): Promise<Topology> {
  const stops: Array<() => Promise<void>> = [];
  try {
    const data = await startDataTier({ database: 'app', replicasPerMaster: 0, replicaAfterRelease: true }, (stop) => stops.unshift(stop));
    const { cluster, primary } = data;
    const env: Record<string, string> = {
      DATABASE_URL: primary.urlFor('app'),
      REDIS_CLUSTER_NODES: cluster.nodesEnv,
      REDIS_PREFIX: `s${randomBytes(3).toString('hex')}`,
      WEBHOOK_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      TRENDS_PROVIDER: 'synthetic',
      ...options.extraEnv,
    };
    const cli = async (args: string[]) => {
      try {
        const { stdout, stderr } = await exec(process.execPath, [path.join(ROOT, 'bin/insights.js'), ...args], {
          env: { PATH: process.env.PATH ?? '', ENV_FILE: NO_ENV_FILE, ...env },
          timeout: 120_000,
        });
        return { code: 0, stdout, stderr };
      } catch (error) {
        const e = error as { code?: number; stdout?: string; stderr?: string };
        return { code: typeof e.code === 'number' ? e.code : 1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
      }
    };
    const released = await cli(['release']);
    if (released.code !== 0) throw new Error(`insights release failed: ${released.stderr}`);
    const replica = await data.startReplica();
    env.DATABASE_READ_URL = replica.urlFor('app');

    const processes: ServiceProcess[] = [];
    stops.unshift(async () => {
      for (const p of processes) if (p.running) p.child.kill('SIGKILL');
    });
    const webs = await Promise.all(
      Array.from({ length: options.webs ?? 2 }, async () => {
        const web = new ServiceProcess('web', { ...env, PORT: String(await freePort()) });
        processes.push(web);
        return web;
      }),
    );
    const startWorker = async () => {
      const worker = new ServiceProcess('worker', env);
      processes.push(worker);
      await worker.ready;
      return worker;
    };
    const workers = await Promise.all(Array.from({ length: options.workers ?? 2 }, startWorker));
    const webUrls = await Promise.all(webs.map(async (w) => (await w.ready).url!));
    return {
      cluster,
      primary,
      replica,
      env,
      webs,
      workers,
      webUrls,
      cli,
      startWorker,
      async stop() {
        const exits = await Promise.all(
          processes.filter((p) => p.running).map(async (p) => ({ process: `${p.kind} ${p.pid}`, code: (await p.kill('SIGTERM')).code })),
        );
        for (const stop of stops) await stop().catch(() => {});
        return exits;
      },
    };
  } catch (error) {
    for (const stop of stops) await stop().catch(() => {});
    throw error;
  }
}
