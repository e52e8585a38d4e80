// What paid providers cost, for `insights budget`: today's requests and
// dollars by purpose (from the bill the paid gateway keeps in Redis), what a
// research run costs (the sum of what its steps' answers were billed, median
// of the latest runs), and what the daily refresh of one insight costs (one
// series task per group of up to five insights, at the listed price).
import { sql } from 'kysely';
import type { Db } from '../db/connection.js';
import { answeringProvider, PROVIDER_PROFILES, providersOf, type ProviderName } from '../domain/trends/capabilities.js';
import type { Redis } from '../redis/connection.js';
import type { RedisKeys } from '../redis/keys.js';
import type { RefreshPlan } from '../refresh/plan.js';
import { accountProblemOf, spendOn } from './paid-gateway.js';

export interface PaidProviderReport {
  provider: ProviderName;
  today: Awaited<ReturnType<typeof spendOn>>;
  /** The account problem it last reported (wrong password, no money), until it answers again. */
  accountProblem: { problem: string; message: string; at: string } | null;
  /** Over the latest finished runs that asked it: requests and dollars per run (median). */
  perRun: { runs: number; medianRequests: number | null; medianUsd: number | null };
  /** The refresh: insights whose series it answers, tasks it takes, dollars per refreshed insight at the listed price. */
  refresh: { insights: number; requests: number; usdPerInsight: number | null; usdPerDay: number };
}

const median = (xs: number[]) => {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

/** Every provenance in a step's output (a step may hold several answers). */
function provenances(value: unknown, found: Array<{ provider?: string; costUsd?: number; requests?: number }> = []) {
  if (Array.isArray(value)) for (const v of value) provenances(v, found);
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k === 'provenance' && v && typeof v === 'object') found.push(v as { provider?: string; costUsd?: number });
      else provenances(v, found);
    }
  }
  return found;
}

export async function paidProviderReports(
  db: Db,
  redis: Redis,
  keys: RedisKeys,
  providers: readonly ProviderName[],
  plan: RefreshPlan,
  latestRuns = 20,
): Promise<PaidProviderReport[]> {
  const reports: PaidProviderReport[] = [];
  for (const provider of providers.filter((p) => PROVIDER_PROFILES[p].paid)) {
    const runs = await db
      .selectFrom('research_runs')
      .select('id')
      .where('status', '=', 'succeeded')
      .where(sql<boolean>`position(${provider} in provider) > 0`)
      .orderBy('finished_at', 'desc')
      .limit(latestRuns)
      .execute();
    const perRun = await Promise.all(
      runs.map(async (r) => {
        const steps = await db.selectFrom('research_steps').select('output').where('run_id', '=', r.id).execute();
        const billed = steps.flatMap((s) => provenances(s.output)).filter((p) => p.provider === provider);
        return {
          requests: billed.reduce((n, p) => n + (p.requests ?? 0), 0),
          usd: billed.reduce((n, p) => n + (p.costUsd ?? 0), 0),
        };
      }),
    );
    const groups = plan.byProvider.find((g) => answeringProvider(providersOf(g.provider), 'series') === provider);
    const price = PROVIDER_PROFILES[provider].priceUsd.explore ?? 0;
    const insights = groups?.insights ?? 0;
    const requests = groups?.groups ?? 0;
    reports.push({
      provider,
      today: await spendOn(redis, keys, provider),
      accountProblem: await accountProblemOf(redis, keys, provider),
      perRun: {
        runs: perRun.length,
        medianRequests: median(perRun.map((r) => r.requests)),
        medianUsd: median(perRun.map((r) => Math.round(r.usd * 1e6) / 1e6)),
      },
      refresh: { insights, requests, usdPerInsight: insights > 0 ? (requests * price) / insights : null, usdPerDay: requests * price },
    });
  }
  return reports;
}
