// Each web process counts the requests it let through, per account, UTC day
// and key, and when each key was last used; every USAGE_FLUSH_MS it writes them
// to Postgres in one batch (and once more when it stops). That is what
// /api/usage reports for past days, what `keys list` shows as last used, and
// what a Redis that lost its counters starts again from. No request waits for
// Postgres. If a write fails (Postgres away), the counts stay and go with the
// next one.
import type { Db } from '../db/connection.js';
import type { Plan } from '../domain/quota.js';
import { utcDay } from '../domain/utc-day.js';
import { apiRequestsByPlan } from '../observability/metrics.js';
import { addUsage, touchKeys, type UsageDelta } from './usage.repository.js';

export const DEFAULT_USAGE_FLUSH_MS = 30_000;

export class UsageRecorder {
  private counts = new Map<string, UsageDelta>();
  private lastUsed = new Map<string, Date>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;

  constructor(
    private readonly db: Db,
    private readonly onError: (error: unknown) => void,
    private readonly flushMs = DEFAULT_USAGE_FLUSH_MS,
  ) {}

  start(): void {
    this.timer ??= setInterval(() => void this.flush(), this.flushMs);
    this.timer.unref();
  }

  record(key: { id: string; accountId: string; plan: Plan }, now = new Date()): void {
    apiRequestsByPlan.inc({ plan: key.plan });
    const day = utcDay(now);
    const id = `${key.accountId}|${day}|${key.id}`;
    const entry = this.counts.get(id);
    if (entry) entry.requests += 1;
    else this.counts.set(id, { accountId: key.accountId, day, apiKeyId: key.id, requests: 1 });
    this.lastUsed.set(key.id, now);
  }

  /** Writes what was counted since the last write. One write at a time. */
  flush(): Promise<void> {
    this.flushing ??= this.write().finally(() => (this.flushing = undefined));
    return this.flushing;
  }

  private async write(): Promise<void> {
    const counts = this.counts;
    const lastUsed = this.lastUsed;
    if (counts.size === 0 && lastUsed.size === 0) return;
    this.counts = new Map();
    this.lastUsed = new Map();
    try {
      await addUsage(this.db, [...counts.values()]);
    } catch (error) {
      // Keep them for the next write.
      for (const [id, d] of counts) {
        const now = this.counts.get(id);
        if (now) now.requests += d.requests;
        else this.counts.set(id, d);
      }
      this.onError(error);
    }
    try {
      await touchKeys(this.db, lastUsed);
    } catch (error) {
      for (const [id, at] of lastUsed) if (!this.lastUsed.has(id)) this.lastUsed.set(id, at);
      this.onError(error);
    }
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.flush();
  }
}
