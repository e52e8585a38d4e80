// An account's usage by UTC day, as `/api/usage?days=N` and `insights accounts
// usage` report it: today from the live counter in Redis (exact), the days
// before from Postgres (as of the web processes' last write).
import type { Db } from '../db/connection.js';
import { utcDay } from '../domain/utc-day.js';
import type { QuotaStore } from './quota.store.js';
import { usageByDay, type DayUsage } from './usage.repository.js';
import { keyNamesOfAccount } from './account.repository.js';

const DAY_MS = 86_400_000;

/**
 * The last `days` days, today included, newest first; days without requests are left out.
 * `todayFallback` stands in for today when Redis has no counter yet.
 */
export async function accountUsage(
  db: Db,
  quota: QuotaStore,
  accountId: string,
  days: number,
  now = new Date(),
  todayFallback?: { keyId: string; requests: number },
): Promise<DayUsage[]> {
  const today = utcDay(now);
  const from = utcDay(new Date(now.getTime() - (days - 1) * DAY_MS));
  const [stored, live, names] = await Promise.all([
    days > 1 ? usageByDay(db, accountId, from) : Promise.resolve([]),
    quota.today(accountId, now),
    keyNamesOfAccount(db, accountId),
  ]);
  const nameOf = new Map(names.map((k) => [k.id, k.name]));
  const shares = live?.byKey ?? (todayFallback ? new Map([[todayFallback.keyId, todayFallback.requests]]) : new Map<string, number>());
  const total = live?.total ?? todayFallback?.requests ?? 0;
  const todayRow =
    total > 0 || todayFallback
      ? [
          {
            day: today,
            requests: total,
            keys: [...shares]
              .map(([keyId, requests]) => ({ key_id: keyId, name: nameOf.get(keyId) ?? null, requests }))
              .sort((a, b) => b.requests - a.requests),
          },
        ]
      : [];
  return [...todayRow, ...stored.filter((d) => d.day !== today)];
}
