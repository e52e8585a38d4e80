// What the daily refresh will do: every active, researched insight in groups of
// comparable popularity, five to a request (domain/trends/google/batching.ts), per
// provider. Read by the refresh itself and by `insights budget`.
import type { Db } from '../db/connection.js';
import { groupByLevel } from '../domain/trends/google/batching.js';
import { SOURCES } from '../domain/catalog.js';
import { kindOfProviders, seriesProviderOf, simulatedProviders } from '../providers/registry.js';
import { listRefreshable, type InsightRow } from '../insights/insight.repository.js';

/**
 * Which provider refreshes an insight: the kind of source it was researched
 * with, never another. Simulated insights refresh from the simulated world;
 * insights researched on recorded answers (replay) are not refreshed (they
 * describe the recorded days); live insights (researched with a live provider,
 * or before migration 0018 kept the provider) refresh from the configured list
 * when it is live, and not at all when it is replay or synthetic. Null: not refreshed.
 */
export function providerOf(insight: Pick<InsightRow, 'source' | 'provider'>, configured: string): string | null {
  // A run records its provider list joined by "+" (replay+dataforseo): any recorded or simulated part decides (kindOfProviders).
  const kind = insight.source === SOURCES.synthetic ? 'simulated' : kindOfProviders(insight.provider);
  if (kind === 'simulated') return simulatedProviders(insight.provider);
  if (kind === 'recorded') return null;
  return kindOfProviders(configured) === 'live' ? configured : null;
}

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
    if (p === null) continue;
    byProvider.set(p, [...(byProvider.get(p) ?? []), { id: r.id, level: r.interest_level }]);
  }
  const grouped = [...byProvider.entries()].map(([p, items]) => ({
    provider: p,
    groups: groupByLevel(items).map((g) => g.map((i) => i.id)),
  }));
  const groups = grouped.flatMap((g) => g.groups);
  // Live Google's share: the insights whose series the queued provider (Google, paced by the trends queue) answers.
  const onGoogle = grouped.filter((g) => seriesProviderOf(g.provider)?.queued === true);
  return {
    insights: [...byProvider.values()].reduce((n, items) => n + items.length, 0),
    requests: groups.length,
    groups,
    googleInsights: onGoogle.reduce((n, g) => n + (byProvider.get(g.provider)?.length ?? 0), 0),
    googleGroups: onGoogle.reduce((n, g) => n + g.groups.length, 0),
    byProvider: grouped.map((g) => ({ provider: g.provider, insights: byProvider.get(g.provider)?.length ?? 0, groups: g.groups.length })),
  };
}
