// Where the soak's processes run: a single Postgres and a single Redis (AOF)
// of its own, or the scaled-out topology (a Redis Cluster of 3 masters with a
// replica each, a Postgres primary with a streaming replica). Each gives the
// processes' connection settings, the harness's own connections, and the
// faults that topology can suffer.
import { sql } from 'kysely';
import { createDb, type Db } from '../../src/db/connection.js';
import { createRedis, type Redis, type RedisTarget } from '../../src/redis/connection.js';
import { LocalPostgres } from '../lib/local-postgres.js';
import { LocalRedis } from '../lib/local-redis.js';
import { startDataTier } from '../topology/topology.js';
import { clusterFaults } from './cluster-faults.js';
import { singleNodeFaults, type FaultPlan } from './faults.js';

export const TOPOLOGIES = ['single', 'cluster'] as const;
export type TopologyName = (typeof TOPOLOGIES)[number];

export interface Deployment {
  topology: TopologyName;
  /** What the processes and the CLI are given to reach Postgres and Redis. */
  env: Record<string, string>;
  redisTarget: RedisTarget;
  /** The harness's own connections (application_name chaos-harness), which survive the faults and report. */
  adminDb: Db;
  adminRedis: Redis;
  faults: FaultPlan;
  /** What the topology is, for the log. */
  description: string;
}

const DATABASE = 'chaos';

async function createDatabase(postgres: LocalPostgres): Promise<void> {
  const bootstrap = createDb(postgres.url, { maxConnections: 1 });
  await sql`create database ${sql.id(DATABASE)}`.execute(bootstrap);
  await bootstrap.destroy();
}

/** `onStarted` gets each stop as soon as its server runs, so Ctrl-C in the middle of setting up stops what did start. */
export async function startDeployment(topology: TopologyName, onStarted: (stop: () => Promise<void>) => void): Promise<Deployment> {
  if (topology === 'single') {
    const postgres = await LocalPostgres.init();
    onStarted(() => postgres.destroy());
    await postgres.start();
    const redis = await LocalRedis.init({ appendOnly: true });
    onStarted(() => redis.destroy());
    await redis.start();
    await createDatabase(postgres);
    const adminDb = createDb(postgres.urlFor(DATABASE), { maxConnections: 4, applicationName: 'chaos-harness' });
    onStarted(() => adminDb.destroy());
    const adminRedis = createRedis(redis.url, 'worker');
    onStarted(async () => adminRedis.disconnect());
    return {
      topology,
      env: { DATABASE_URL: postgres.urlFor(DATABASE), REDIS_URL: redis.url },
      redisTarget: { url: redis.url },
      adminDb,
      adminRedis,
      faults: singleNodeFaults({ postgres, redis, adminDb, adminRedis }),
      description: 'Postgres and Redis (AOF) of our own',
    };
  }
  const replicasPerMaster = 1;
  const tier = await startDataTier({ database: DATABASE, replicasPerMaster }, onStarted);
  const replica = tier.replica!;
  const adminDb = createDb(tier.primary.urlFor(DATABASE), { maxConnections: 4, applicationName: 'chaos-harness' });
  onStarted(() => adminDb.destroy());
  const replicaDb = createDb(replica.urlFor(DATABASE), { maxConnections: 2, applicationName: 'chaos-harness' });
  onStarted(() => replicaDb.destroy());
  const redisTarget = { cluster: tier.cluster.seeds };
  const adminRedis = createRedis(redisTarget, 'worker');
  onStarted(async () => adminRedis.disconnect());
  return {
    topology,
    env: {
      DATABASE_URL: tier.primary.urlFor(DATABASE),
      DATABASE_READ_URL: replica.urlFor(DATABASE),
      REDIS_CLUSTER_NODES: tier.cluster.nodesEnv,
    },
    redisTarget,
    adminDb,
    adminRedis,
    faults: clusterFaults({ cluster: tier.cluster, replicasPerMaster, primary: tier.primary, replica, adminDb, replicaDb }),
    description: `a Redis Cluster (3 masters, ${replicasPerMaster} replica each: ${tier.cluster.nodesEnv}), a Postgres primary (:${tier.primary.port}) and its streaming replica (:${replica.port})`,
  };
}
