// What paid and metered providers cost, for `insights budget`: today's requests and
// dollars (or, for the Trends API, data points of its quota) by purpose (from the bill the paid gateway keeps in Redis), what a
// research run costs (what the gateway counted billed to its steps, median of
// the latest runs), and what the daily refresh of one insight costs (one
// series task per group of up to five insights, at the listed price).
import { median } from '../domain/stats.js';
import type { Db } from '../db/connection.js';
import { profileOf, seriesProviderOf, type ProviderName } from '../providers/registry.js';
import type { Redis } from '../redis/connection.js';
import type { RedisKeys } from '../redis/keys.js';
import { accountProblemOf, runSpendOf, spendOn } from '../providers/paid-gateway.js';
import { latestSucceededRunsAsking } from './run.repository.js';

export interface PaidProviderReport {
  provider: ProviderName;
  /** What it is counted in: dollars (paid) or its quota's unit (the Trends API: data points). */
  unit: 'usd' | 'data points';
  today: Awaited<ReturnType<typeof spendOn>>;
  /** The account problem it last reported (wrong password, no money), until it answers again. */
  accountProblem: { problem: string; message: string; at: string } | null;
  /** Over the latest finished runs that asked it: requests, dollars and data points per run (median). */
  perRun: { runs: number; medianRequests: number | null; medianUsd: number | null; medianPoints: number | null };
  /** The refresh: insights whose series it answers, tasks it takes, dollars per refreshed insight at the listed price. */
  refresh: { insights: number; requests: number; usdPerInsight: number | null; usdPerDay: number };
}

const medianOrNull = (xs: number[]) => (xs.length === 0 ? null : median(xs));

export async function paidProviderReports(
  db: Db,
  redis: Redis,
  keys: RedisKeys,
  providers: readonly ProviderName[],
  /** The refresh's plan (refresh/plan.ts): insights and groups per provider list. */
  plan: { byProvider: ReadonlyArray<{ provider: string; insights: number; groups: number }> },
  latestRuns = 20,
): Promise<PaidProviderReport[]> {
  const reports: PaidProviderReport[] = [];
  for (const provider of providers.filter((p) => profileOf(p).paid || profileOf(p).meteredIn !== undefined)) {
    const runs = await latestSucceededRunsAsking(db, provider, latestRuns);
    const perRun = await Promise.all(runs.map((id) => runSpendOf(redis, keys, provider, id)));
    const groups = plan.byProvider.find((g) => seriesProviderOf(g.provider)?.name === provider);
    const price = profileOf(provider).priceUsd.explore ?? 0;
    const insights = groups?.insights ?? 0;
    const requests = groups?.groups ?? 0;
    reports.push({
      provider,
      unit: profileOf(provider).meteredIn ?? 'usd',
      today: await spendOn(redis, keys, provider),
      accountProblem: await accountProblemOf(redis, keys, provider),
      perRun: {
        runs: perRun.length,
        medianRequests: medianOrNull(perRun.map((r) => r.requests)),
        medianUsd: medianOrNull(perRun.map((r) => Math.round(r.usd * 1e6) / 1e6)),
        medianPoints: medianOrNull(perRun.map((r) => r.points)),
      },
      refresh: { insights, requests, usdPerInsight: insights > 0 ? (requests * price) / insights : null, usdPerDay: requests * price },
    });
  }
  return reports;
}
