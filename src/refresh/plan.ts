// What the daily refresh will do: every active, researched insight in groups of
// comparable popularity, five to a request (domain/trends/batching.ts), per
// provider. Read by the refresh itself and by `insights budget`.
import type { Db } from '../db/connection.js';
import { groupByLevel } from '../domain/trends/batching.js';
import { answeringProvider, providersOf } from '../domain/trends/capabilities.js';
import { listRefreshable, type InsightRow } from '../insights/insight.repository.js';

/** Synthetic insights refresh from synthetic data; every other one from the configured provider. */
export const providerOf = (insight: Pick<InsightRow, 'source'>, configured: string) =>
  insight.source === 'synthetic' ? 'synthetic' : configured;

export interface RefreshPlan {
  insights: number;
  /** Requests the refresh needs (one per group, before any member needs one of its own). */
  requests: number;
  groups: string[][];
  /** What of it asks live Google (synthetic insights refresh from generated data). */
  googleInsights: number;
  googleGroups: number;
  /** Per provider list (as runs record it): insights and the groups (requests) the refresh asks of it. */
  byProvider: Array<{ provider: string; insights: number; groups: number }>;
}

/** Every active, researched insight in groups of comparable popularity, per provider. */
export async function planRefresh(db: Db, provider: string): Promise<RefreshPlan> {
  const rows = await listRefreshable(db);
  const byProvider = new Map<string, Array<{ id: string; level: number | null }>>();
  for (const r of rows) {
    const p = providerOf(r, provider);
    byProvider.set(p, [...(byProvider.get(p) ?? []), { id: r.id, level: r.interest_level }]);
  }
  const grouped = [...byProvider.entries()].map(([p, items]) => ({
    provider: p,
    groups: groupByLevel(items).map((g) => g.map((i) => i.id)),
  }));
  const groups = grouped.flatMap((g) => g.groups);
  // Live Google's share: the insights whose series Google answers (first in their list with the capability).
  const onGoogle = grouped.filter((g) => answeringProvider(providersOf(g.provider), 'series') === 'google');
  return {
    insights: rows.length,
    requests: groups.length,
    groups,
    googleInsights: onGoogle.reduce((n, g) => n + (byProvider.get(g.provider)?.length ?? 0), 0),
    googleGroups: onGoogle.reduce((n, g) => n + g.groups.length, 0),
    byProvider: grouped.map((g) => ({ provider: g.provider, insights: byProvider.get(g.provider)?.length ?? 0, groups: g.groups.length })),
  };
}
