// The faults the soak injects, each a real event on a real server or process.
import { sql } from 'kysely';
import type { Redis } from '../../src/redis/connection.js';
import type { Db } from '../../src/db/connection.js';
import type { LocalPostgres } from '../lib/local-postgres.js';
import type { LocalRedis } from '../lib/local-redis.js';
import type { WebhookReceiver } from './receiver.js';
import type { Supervisor } from './supervisor.js';

export const FAULT_KINDS = [
  'postgres-fast-restart',
  'postgres-crash',
  'postgres-terminate-backends',
  'redis-restart',
  'redis-client-kill',
  'worker-kill-9',
  'web-kill-9',
  'worker-sigterm',
  'receiver-500',
  'receiver-timeout',
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

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

export interface FaultTargets {
  postgres: LocalPostgres;
  redis: LocalRedis;
  /** The harness's own connections (application_name chaos-harness), which survive and report. */
  adminDb: Db;
  adminRedis: Redis;
  supervisor: Supervisor;
  receiver: WebhookReceiver;
  /** True while some research step is running, so a SIGTERM lands mid-step. */
  stepsActive(): Promise<boolean>;
}

export interface InjectedFault {
  kind: FaultKind;
  atMs: number;
  /** How long the fault itself took (down time, restart, window). */
  tookMs: number;
  detail: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Injects one fault and resolves when it is over (the server is back, the
 * process restarted). Receiver windows run on in the background: they are
 * returned as `pending` so the harness can wait for them before it checks.
 */
export async function inject(kind: FaultKind, t: FaultTargets, random: () => number): Promise<{ detail: string; pending?: Promise<void> }> {
  const pick = <T>(items: T[]): T => items[Math.floor(random() * items.length)]!;
  const downMs = Math.round(300 + random() * 2_700);
  switch (kind) {
    case 'postgres-fast-restart':
      await t.postgres.restart('fast');
      return { detail: 'pg_ctl restart -m fast' };
    case 'postgres-crash':
      await t.postgres.stop('immediate');
      await sleep(downMs);
      await t.postgres.start();
      return { detail: `pg_ctl stop -m immediate, down ${downMs} ms, crash recovery at start` };
    case 'postgres-terminate-backends': {
      const { rows } = await sql<{ n: number }>`
        select count(*) filter (where pg_terminate_backend(pid))::int as n
        from pg_stat_activity where application_name like 'si-%'`.execute(t.adminDb);
      return { detail: `pg_terminate_backend of ${rows[0]?.n ?? 0} application connections` };
    }
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
    case 'worker-kill-9':
    case 'web-kill-9': {
      const slot = pick(t.supervisor.slots.filter((s) => s.kind === (kind === 'web-kill-9' ? 'web' : 'worker')));
      await t.supervisor.kill(slot, 'SIGKILL');
      return { detail: `kill -9 ${slot.name}, restarted` };
    }
    case 'worker-sigterm': {
      const slot = pick(t.supervisor.slots.filter((s) => s.kind === 'worker'));
      const midStep = await t.stepsActive().catch(() => false);
      const exit = await t.supervisor.kill(slot, 'SIGTERM');
      if (exit.code !== 0) throw new Error(`${slot.name} exited ${exit.signal ?? exit.code} on SIGTERM, not 0`);
      return { detail: `SIGTERM ${slot.name}${midStep ? ' with steps running' : ''}, exited 0, restarted` };
    }
    case 'receiver-500':
    case 'receiver-timeout': {
      const windowMs = Math.round(2_000 + random() * 6_000);
      const pending = t.receiver.misbehave(kind === 'receiver-500' ? 'error500' : 'hang', windowMs);
      return { detail: `receiver ${kind === 'receiver-500' ? 'answers 500' : 'holds requests unanswered'} for ${windowMs} ms`, pending };
    }
  }
}
