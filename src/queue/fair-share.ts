// Fair queues over accounts (issue 48): work is taken from the accounts in
// turn, and a lone account gets the whole capacity. Each piece of work gets a
// turn (start-time fair queuing): one past the later of the account's last
// turn and the turn of the first piece still waiting. The turn is the job's
// BullMQ priority, so BullMQ itself serves the accounts round-robin: an
// account's backlog of 100 holds turns 1..100, another account's next job
// takes the turn of the head and is served right after it. Nothing sleeps and
// nothing is held back, so one account alone is served as fast as the workers
// go. The jobs stay ordinary BullMQ jobs (nothing lives only in the fair
// structure): a crash or a Redis restart loses what it always lost, and the
// sweepers give it back its job, with a new turn.
//
// Every key a turn touches is in its queue's hash tag (`{prefix:queue}`), so
// the script runs on one Redis Cluster shard.
import type { Queue } from 'bullmq';
import type { Redis } from '../redis/connection.js';
import { SCRIPTS } from '../redis/scripts.js';

// ARGV: scale, largest turn, record (1/0), first turn, then owner, member pairs. Answers each member's turn.
const { turns: TURNS } = SCRIPTS.fairShare;

/** BullMQ's largest priority (its PRIORITY_LIMIT is 2^21). */
export const MAX_PRIORITY = 2 ** 21 - 1;
/** How a priority is stored in BullMQ's prioritized set: priority × 2^32 + a counter. */
const BULLMQ_SCALE = 2 ** 32;

/** The Redis connection BullMQ opened for the queue (its keys are in its hash tag). */
async function clientOf(queue: Queue): Promise<Redis> {
  return (await queue.getBackend().client) as unknown as Redis;
}

/** A key of our own in the queue's hash tag, beside BullMQ's (`{prefix:queue}:queue:fair:…`). */
export function fairKey(queue: Queue, name: string): string {
  return `${queue.qualifiedName}:fair:${name}`;
}

export interface Turns {
  /** The turns of `items`, in order (one Redis round trip). */
  take(items: ReadonlyArray<{ owner: string; member: string }>): Promise<number[]>;
}

/**
 * Turns for jobs that wait in the queue itself (webhook deliveries): what
 * waits is BullMQ's prioritized set, so a job taken by a worker no longer holds
 * the virtual time back. Turns stay below `largest`: a job at that priority
 * waits behind every account (replays).
 */
export function queueTurns(queue: Queue, largest = MAX_PRIORITY, first = 1): Turns {
  return {
    async take(items) {
      if (items.length === 0) return [];
      const redis = await clientOf(queue);
      const args = items.flatMap((i) => [i.owner, i.member]);
      return TURNS.run(redis, [queue.keys.prioritized!, fairKey(queue, 'last')], [BULLMQ_SCALE, largest, 0, first, ...args]);
    },
  };
}

/**
 * Turns for work that waits longer than its job (a research run waits on
 * Google long after its first step was taken): what waits is a set of our own,
 * member → turn, which the work leaves when it ends (`leave`). A member asking
 * again keeps its turn (a revived job is not sent to the back).
 */
export class HeldTurns implements Turns {
  constructor(
    private readonly queue: Queue,
    private readonly largest = MAX_PRIORITY,
  ) {}

  private get waitingKey(): string {
    return fairKey(this.queue, 'waiting');
  }

  async take(items: ReadonlyArray<{ owner: string; member: string }>): Promise<number[]> {
    if (items.length === 0) return [];
    const redis = await clientOf(this.queue);
    const args = items.flatMap((i) => [i.owner, i.member]);
    return TURNS.run(redis, [this.waitingKey, fairKey(this.queue, 'last')], [1, this.largest, 1, 1, ...args]);
  }

  /** The member's turn, if it holds one. */
  async turnOf(member: string): Promise<number | undefined> {
    const score = await (await clientOf(this.queue)).zscore(this.waitingKey, member);
    return score === null ? undefined : Number(score);
  }

  /** How many hold an earlier turn than the member (undefined: it holds none). */
  async ahead(member: string): Promise<number | undefined> {
    const redis = await clientOf(this.queue);
    const score = await redis.zscore(this.waitingKey, member);
    if (score === null) return undefined;
    return redis.zcount(this.waitingKey, '-inf', `(${score}`);
  }

  /** The first `count` members in turn order (the sweeper checks they still wait). */
  async first(count: number): Promise<string[]> {
    return (await clientOf(this.queue)).zrange(this.waitingKey, 0, count - 1);
  }

  async leave(...members: string[]): Promise<void> {
    if (members.length > 0) await (await clientOf(this.queue)).zrem(this.waitingKey, ...members);
  }
}
