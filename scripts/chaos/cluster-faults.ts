// The faults of the scaled-out topology: on the Redis Cluster (a master
// killed and its replica promoted, a replica restarted, a slot moved between
// masters with its keys), on the Postgres streaming replica (stopped and
// started, its replay paused), and the single-node soak's on the Postgres
// primary, Redis connections, the processes and the receiver.
import { sql } from 'kysely';
import type { Db } from '../../src/db/connection.js';
import { measureReplicaLag } from '../../src/db/read-router.js';
import type { LocalPostgres } from '../lib/local-postgres.js';
import type { LocalRedisCluster } from '../lib/local-redis-cluster.js';
import {
  injectPostgresFault,
  injectProcessFault,
  isPostgresFault,
  isProcessFault,
  POSTGRES_FAULTS,
  PROCESS_FAULTS,
  sleep,
  terminateBackends,
  type FaultPlan,
} from './faults.js';

export const CLUSTER_FAULTS = [
  'redis-master-kill-9',
  'redis-replica-restart',
  'redis-slot-move',
  'postgres-replica-restart',
  'postgres-replica-replay-pause',
] as const;

export const CLUSTER_TOPOLOGY_FAULTS = [...CLUSTER_FAULTS, ...POSTGRES_FAULTS, 'redis-client-kill', ...PROCESS_FAULTS] as const;

export interface ClusterTargets {
  cluster: LocalRedisCluster;
  replicasPerMaster: number;
  primary: LocalPostgres;
  replica: LocalPostgres;
  /** The harness's connections (application_name chaos-harness) to the primary and to the replica. */
  adminDb: Db;
  replicaDb: Db;
}

/** Retries `fn` while a server it needs is coming back. */
async function retrying<T>(what: string, fn: () => Promise<T>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await fn();
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`${what}: still failing after ${timeoutMs} ms: ${String(error)}`);
      await sleep(200);
    }
  }
}

/**
 * Kinds are drawn from a shuffled bag holding each kind once, refilled when
 * empty: the order is the seed's, and 45 faults hold every kind at least 3 times
 * (a master failover and a replica restart among them), which a uniform draw
 * does not promise.
 */
export function bagOf(kinds: readonly string[]): (random: () => number) => string {
  let bag: string[] = [];
  return (random) => {
    if (bag.length === 0) {
      bag = [...kinds];
      for (let i = bag.length - 1; i > 0; i -= 1) {
        const j = Math.floor(random() * (i + 1));
        [bag[i], bag[j]] = [bag[j]!, bag[i]!];
      }
    }
    return bag.pop()!;
  };
}

export function clusterFaults(t: ClusterTargets): FaultPlan {
  const { cluster } = t;
  const healed = () => cluster.waitUntilReplicated(t.replicasPerMaster, 90_000);

  const killMaster = async (random: () => number): Promise<string> => {
    const roles = await cluster.roles();
    const masters = roles.filter((r) => r.master && !r.failed && r.slots.length > 0);
    const victim = masters[Math.floor(random() * masters.length)]!;
    const heir = roles.find((r) => r.masterId === victim.id && !r.failed);
    const at = Date.now();
    await cluster.crash(victim.port);
    await retrying(`the failover of ${victim.port}`, async () => {
      const now = await cluster.roles();
      if (!now.some((r) => r.master && !r.failed && r.port !== victim.port && victim.slots.every((s) => r.slots.includes(s))))
        throw new Error('its slots are not served by another master yet');
    });
    const failoverMs = Date.now() - at;
    const promoted = (await cluster.roles()).find((r) => r.master && r.slots.includes(victim.slots[0]!));
    await cluster.restart(victim.port);
    await healed();
    return `kill -9 of master :${victim.port} (${victim.slots.length} slots); ${promoted?.port === heir?.port ? 'its replica' : 'replica'} :${promoted?.port} promoted after ${failoverMs} ms; the old master back as a replica, synced after ${Date.now() - at} ms`;
  };

  const restartReplica = async (random: () => number, downMs: number): Promise<string> => {
    const replicas = (await cluster.roles()).filter((r) => !r.master && !r.failed);
    const victim = replicas[Math.floor(random() * replicas.length)]!;
    const at = Date.now();
    await cluster.terminate(victim.port);
    await sleep(downMs);
    await cluster.restart(victim.port);
    await healed();
    return `SIGTERM of replica :${victim.port}, down ${downMs} ms, synced again after ${Date.now() - at} ms`;
  };

  /** A slot in use (a random key's, so the queues' and counters' slots are the likely ones) to another master. */
  const moveSlot = async (random: () => number): Promise<string> => {
    const masters = (await cluster.roles()).filter((r) => r.master && !r.failed && r.slots.length > 0);
    const source = masters[Math.floor(random() * masters.length)]!;
    const key = (await cluster.command(source.port, 'randomkey')).trim();
    const slot = key
      ? Number((await cluster.command(source.port, 'cluster', 'keyslot', key)).trim())
      : source.slots[Math.floor(random() * source.slots.length)]!;
    const targets = masters.filter((m) => m.id !== source.id);
    const target = targets[Math.floor(random() * targets.length)]!;
    const at = Date.now();
    const moved = await cluster.moveSlot(slot, target.port);
    return `slot ${slot}${key ? ` (of ${key.slice(0, 60)})` : ''} moved :${moved.fromPort} → :${target.port} with ${moved.keys} keys in ${Date.now() - at} ms`;
  };

  const restartPostgresReplica = async (random: () => number, downMs: number): Promise<string> => {
    const mode = random() < 0.5 ? 'fast' : 'immediate';
    await t.replica.stop(mode);
    await sleep(downMs);
    await t.replica.start();
    return `replica pg_ctl stop -m ${mode}, down ${downMs} ms, started (streams again from the primary)`;
  };

  const pauseReplay = async (random: () => number): Promise<string> => {
    const windowMs = Math.round(2_000 + random() * 6_000);
    await retrying('pg_wal_replay_pause()', () => sql`select pg_wal_replay_pause()`.execute(t.replicaDb));
    await sleep(windowMs);
    const lag = await measureReplicaLag(t.adminDb, t.replicaDb).catch(() => undefined);
    await retrying('pg_wal_replay_resume()', () => sql`select pg_wal_replay_resume()`.execute(t.replicaDb));
    return `replica replay paused for ${windowMs} ms (${lag ? `${lag.bytesBehind} bytes of WAL behind` : 'lag unknown'} at resume)`;
  };

  return {
    kinds: CLUSTER_TOPOLOGY_FAULTS,
    next: bagOf(CLUSTER_TOPOLOGY_FAULTS),
    async inject(kind, targets, random) {
      const downMs = Math.round(300 + random() * 2_700);
      if (isProcessFault(kind)) return injectProcessFault(kind, targets, random);
      if (kind === 'postgres-terminate-backends') {
        const onPrimary = await terminateBackends(t.adminDb);
        const onReplica = await terminateBackends(t.replicaDb).catch(() => 0);
        return { detail: `pg_terminate_backend of ${onPrimary} application connections on the primary, ${onReplica} on the replica` };
      }
      if (isPostgresFault(kind)) return { detail: `primary: ${await injectPostgresFault(kind, t.primary, t.adminDb, downMs)}` };
      switch (kind) {
        case 'redis-master-kill-9':
          return { detail: await killMaster(random) };
        case 'redis-replica-restart':
          return { detail: await restartReplica(random, downMs) };
        case 'redis-slot-move':
          return { detail: await moveSlot(random) };
        case 'postgres-replica-restart':
          return { detail: await restartPostgresReplica(random, downMs) };
        case 'postgres-replica-replay-pause':
          return { detail: await pauseReplay(random) };
        case 'redis-client-kill': {
          const killed = await Promise.all(
            (await cluster.roles())
              .filter((r) => !r.failed)
              .map(async (r) => {
                const normal = Number(await cluster.command(r.port, 'client', 'kill', 'type', 'normal'));
                const pubsub = Number(await cluster.command(r.port, 'client', 'kill', 'type', 'pubsub'));
                return normal + pubsub;
              }),
          );
          return { detail: `CLIENT KILL on every node: ${killed.reduce((a, b) => a + b, 0)} connections` };
        }
        default:
          throw new Error(`the cluster soak has no fault "${kind}"`);
      }
    },
  };
}
