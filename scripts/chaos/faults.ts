// The faults the soak injects, each a real event on a real server or process:
// those on the processes and the receiver (every topology), and those on a
// single Postgres and a single Redis. The Redis Cluster and Postgres replica
// ones are in cluster-faults.ts.
import { sql } from 'kysely';
import type { Redis } from '../../src/redis/connection.js';
import type { Db } from '../../src/db/connection.js';
import type { LocalPostgres } from '../lib/local-postgres.js';
import type { LocalRedis } from '../lib/local-redis.js';
import type { WebhookReceiver } from './receiver.js';
import type { Supervisor } from './supervisor.js';

/** On the Procfile's processes and the webhook receiver: the same in every topology. */
export const PROCESS_FAULTS = ['worker-kill-9', 'web-kill-9', 'worker-sigterm', 'receiver-500', 'receiver-timeout'] as const;
export type ProcessFault = (typeof PROCESS_FAULTS)[number];

/** On the one Postgres (its primary, in the cluster topology). */
export const POSTGRES_FAULTS = ['postgres-fast-restart', 'postgres-crash', 'postgres-terminate-backends'] as const;
export type PostgresFault = (typeof POSTGRES_FAULTS)[number];

/** The single-node soak's, in the order its seeds were drawn against. */
export const FAULT_KINDS = [...POSTGRES_FAULTS, 'redis-restart', 'redis-client-kill', ...PROCESS_FAULTS] as const;

/** A small seeded PRNG (mulberry32): the same seed gives the same fault schedule. */
export function seededRandom(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) | 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** What the soak starts itself, which any topology's faults may hit. */
export interface ProcessTargets {
  supervisor: Supervisor;
  receiver: WebhookReceiver;
  /** True while some research step is running, so a SIGTERM lands mid-step. */
  stepsActive(): Promise<boolean>;
  /**
   * The next fault may land while a killed process is still starting (its
   * readiness is pending, awaited before the checks). On a loaded machine a
   * process takes a minute to start, which would otherwise space the faults
   * out a minute apart. Off in the single-node soak, whose seeds keep their pace.
   */
  restartInBackground?: boolean;
}

export interface FaultOutcome {
  detail: string;
  /** A window that runs on in the background (a misbehaving receiver, a paused replica): awaited before the checks. */
  pending?: Promise<void>;
}

/** The faults of one topology: which there are, which comes next, and how each is done. */
export interface FaultPlan {
  kinds: readonly string[];
  next(random: () => number): string;
  /** Injects one fault and resolves when it is over (the server is back, the process restarted). */
  inject(kind: string, targets: ProcessTargets, random: () => number): Promise<FaultOutcome>;
}

export interface InjectedFault {
  kind: string;
  atMs: number;
  /** How long the fault itself took (down time, restart, window). */
  tookMs: number;
  detail: string;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function isProcessFault(kind: string): kind is ProcessFault {
  return (PROCESS_FAULTS as readonly string[]).includes(kind);
}

export function isPostgresFault(kind: string): kind is PostgresFault {
  return (POSTGRES_FAULTS as readonly string[]).includes(kind);
}

export async function injectProcessFault(kind: ProcessFault, t: ProcessTargets, random: () => number): Promise<FaultOutcome> {
  const pick = <T>(items: T[]): T => items[Math.floor(random() * items.length)]!;
  switch (kind) {
    case 'worker-kill-9':
    case 'web-kill-9': {
      const slot = pick(t.supervisor.slots.filter((s) => s.kind === (kind === 'web-kill-9' ? 'web' : 'worker')));
      if (!t.restartInBackground) {
        await t.supervisor.kill(slot, 'SIGKILL');
        return { detail: `kill -9 ${slot.name}, restarted` };
      }
      const wasReady = t.supervisor.isReady(slot);
      const { ready } = await t.supervisor.killAndRestart(slot, 'SIGKILL');
      return { detail: `kill -9 ${slot.name}${wasReady ? '' : ' (still starting)'}, restarting`, pending: ready };
    }
    case 'worker-sigterm': {
      // A process asked to stop must stop cleanly once it has started: one still starting is not asked.
      const started = () => t.supervisor.slots.filter((s) => s.kind === 'worker' && t.supervisor.isReady(s));
      for (const deadline = Date.now() + 300_000; started().length === 0;) {
        if (Date.now() > deadline) throw new Error('no worker finished starting within 300 s');
        await sleep(200);
      }
      const slot = pick(started());
      const midStep = await t.stepsActive().catch(() => false);
      const { exit, ready } = await t.supervisor.killAndRestart(slot, 'SIGTERM');
      if (exit.code !== 0) throw new Error(`${slot.name} exited ${exit.signal ?? exit.code} on SIGTERM, not 0`);
      if (!t.restartInBackground) await ready;
      const detail = `SIGTERM ${slot.name}${midStep ? ' with steps running' : ''}, exited 0, ${t.restartInBackground ? 'restarting' : 'restarted'}`;
      return t.restartInBackground ? { detail, pending: ready } : { detail };
    }
    case 'receiver-500':
    case 'receiver-timeout': {
      const windowMs = Math.round(2_000 + random() * 6_000);
      const pending = t.receiver.misbehave(kind === 'receiver-500' ? 'error500' : 'hang', windowMs);
      return { detail: `receiver ${kind === 'receiver-500' ? 'answers 500' : 'holds requests unanswered'} for ${windowMs} ms`, pending };
    }
  }
}

/** Terminates the service's connections (application_name si-…) on the server `db` is connected to. */
export async function terminateBackends(db: Db): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    select count(*) filter (where pg_terminate_backend(pid))::int as n
    from pg_stat_activity where application_name like 'si-%'`.execute(db);
  return rows[0]?.n ?? 0;
}

export async function injectPostgresFault(kind: PostgresFault, postgres: LocalPostgres, adminDb: Db, downMs: number): Promise<string> {
  switch (kind) {
    case 'postgres-fast-restart':
      await postgres.restart('fast');
      return 'pg_ctl restart -m fast';
    case 'postgres-crash':
      await postgres.stop('immediate');
      await sleep(downMs);
      await postgres.start();
      return `pg_ctl stop -m immediate, down ${downMs} ms, crash recovery at start`;
    case 'postgres-terminate-backends':
      return `pg_terminate_backend of ${await terminateBackends(adminDb)} application connections`;
  }
}

/** The single-node soak's faults: on its Postgres, its Redis (AOF), the processes and the receiver, drawn uniformly. */
export function singleNodeFaults(t: { postgres: LocalPostgres; redis: LocalRedis; adminDb: Db; adminRedis: Redis }): FaultPlan {
  return {
    kinds: FAULT_KINDS,
    next: (random) => FAULT_KINDS[Math.floor(random() * FAULT_KINDS.length)]!,
    async inject(kind, targets, random) {
      const downMs = Math.round(300 + random() * 2_700);
      if (isProcessFault(kind)) return injectProcessFault(kind, targets, random);
      if (isPostgresFault(kind)) return { detail: await injectPostgresFault(kind, t.postgres, t.adminDb, downMs) };
      switch (kind) {
        case 'redis-restart':
          await t.redis.stop('SIGTERM');
          await sleep(downMs);
          await t.redis.start();
          return { detail: `redis-server SIGTERM (AOF kept), down ${downMs} ms` };
        case 'redis-client-kill': {
          const normal = await t.adminRedis.call('CLIENT', 'KILL', 'TYPE', 'normal', 'SKIPME', 'yes');
          const pubsub = await t.adminRedis.call('CLIENT', 'KILL', 'TYPE', 'pubsub');
          return { detail: `CLIENT KILL: ${String(normal)} normal, ${String(pubsub)} pubsub connections` };
        }
        default:
          throw new Error(`the single-node soak has no fault "${kind}"`);
      }
    },
  };
}
