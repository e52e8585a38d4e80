// Reads for the API from a Postgres replica (DATABASE_READ_URL) without ever
// serving, or caching, something older than the read-model version a request
// is answered under: each version carries the WAL position (LSN) of the write
// that made it, and a request reads from the replica only once the replica
// has replayed that far; else from the primary. The replica's position is
// polled a few times a second and looked up again when a request needs more.
// A replica that cannot be reached is skipped until it answers again.
import { sql } from 'kysely';
import type { Db } from './connection.js';

/** A pg_lsn ("16/B374D848") as a number that orders like the WAL. */
export function parseLsn(lsn: string): bigint | undefined {
  const m = /^([0-9A-Fa-f]{1,8})\/([0-9A-Fa-f]{1,8})$/.exec(lsn);
  return m ? (BigInt(`0x${m[1]}`) << 32n) + BigInt(`0x${m[2]}`) : undefined;
}

export interface ReadChoice {
  db: Db;
  from: 'primary' | 'replica';
}

export class ReadRouter {
  private replayed: bigint | undefined;
  private timer: NodeJS.Timeout | undefined;
  private looking: Promise<void> | undefined;

  constructor(
    private readonly primary: Db,
    private readonly replica: Db | undefined,
    private readonly pollMs = 200,
  ) {}

  start(): void {
    if (!this.replica) return;
    void this.look();
    this.timer = setInterval(() => void this.look(), this.pollMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** Where to read for a version whose writes reached `lsn`. */
  async choose(lsn: string): Promise<ReadChoice> {
    const primary: ReadChoice = { db: this.primary, from: 'primary' };
    if (!this.replica) return primary;
    const needed = parseLsn(lsn);
    // A version with no known position (written before positions were kept, or by the embedded Postgres): the primary is sure.
    if (needed === undefined) return primary;
    if (this.replayed === undefined || this.replayed < needed) await this.look();
    return this.replayed !== undefined && this.replayed >= needed ? { db: this.replica, from: 'replica' } : primary;
  }

  /** One query at a time, shared by every request that asks meanwhile. */
  private look(): Promise<void> {
    this.looking ??= (async () => {
      try {
        const { rows } = await sql<{ lsn: string | null }>`select pg_last_wal_replay_lsn()::text as lsn`.execute(this.replica!);
        this.replayed = rows[0]?.lsn ? parseLsn(rows[0].lsn) : undefined;
      } catch {
        this.replayed = undefined; // unreachable: read the primary until it answers
      }
    })().finally(() => (this.looking = undefined));
    return this.looking;
  }
}

/** How far a replica is behind its primary, as `insights doctor` shows it. */
export interface ReplicaLag {
  /** WAL the primary has written that the replica has not replayed yet. */
  bytesBehind: number;
  primaryLsn: string;
  replayedLsn: string;
  /** Seconds since the replica replayed its last transaction (grows on an idle primary too; null before the first). */
  lastReplaySecondsAgo: number | null;
}

/** Reads the replica's replay position first, so a write in between makes the lag larger, never negative. */
export async function measureReplicaLag(primary: Db, replica: Db): Promise<ReplicaLag> {
  const { rows: replayed } = await sql<{ lsn: string | null; age: number | null }>`
    select pg_last_wal_replay_lsn()::text as lsn,
           extract(epoch from now() - pg_last_xact_replay_timestamp())::float8 as age`.execute(replica);
  const { rows: current } = await sql<{ lsn: string }>`select pg_current_wal_lsn()::text as lsn`.execute(primary);
  const replayedLsn = replayed[0]?.lsn;
  if (!replayedLsn) throw new Error('DATABASE_READ_URL is not a replica in recovery (pg_last_wal_replay_lsn() is null)');
  const primaryLsn = current[0]!.lsn;
  const behind = parseLsn(primaryLsn)! - parseLsn(replayedLsn)!;
  return {
    bytesBehind: Number(behind > 0n ? behind : 0n),
    primaryLsn,
    replayedLsn,
    lastReplaySecondsAgo: replayed[0]?.age === null || replayed[0]?.age === undefined ? null : Math.round(replayed[0].age * 10) / 10,
  };
}
