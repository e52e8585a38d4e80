// A refresh group: up to five insights of comparable popularity refreshed from
// one request (domain/trends/google/batching.ts). The members that kept their
// precision in the answer are written together, in one transaction. The answer
// also measures the members' popularity against each other; a member left
// without precision keeps that measure, for the next round to group it by.
import { UnrecoverableError } from 'bullmq';
import { levelsFromBatch, servableFromBatch, UNMEASURED_LEVEL } from '../domain/trends/google/batching.js';
import type { InsightRow } from '../insights/insight.repository.js';
import type { InterestOverTime } from '../domain/trends/answers.js';
import type { RefreshDeps } from './fetch.js';
import { columnOf, freshSeriesOf, type FreshSeries } from './fresh-series.js';
import { providerOf } from './plan.js';
import { writeFreshSeries } from './write.js';

/** Refreshes the group; answers who was served and who is left for another round. */
export async function refreshGroup(
  deps: RefreshDeps,
  insights: readonly InsightRow[],
  fetch: (provider: string, keywords: string[]) => Promise<InterestOverTime>,
): Promise<{ served: string[]; leftover: string[]; keywords: number }> {
  // Grouped by provider (plan.ts): every member refreshes from the same one.
  const provider = providerOf(insights[0]!, deps.provider);
  if (provider === null) return { served: [], leftover: [], keywords: 0 };
  const keywords = [...new Set(insights.map((i) => i.primary_keyword))];
  const answer = await fetch(provider, keywords);
  if (answer.keywords.length !== keywords.length)
    throw new UnrecoverableError(`asked for ${keywords.length} keywords, got ${answer.keywords.length}`);

  const columns = keywords.map((_, i) => columnOf(answer, i));
  const means = columns.map((c) => c.points.reduce((s, p) => s + (p.values[0] ?? 0), 0) / Math.max(1, c.points.length));
  // The member whose popularity is known and largest anchors everyone else's; in a group of
  // unmeasured ones, the most searched gets the bound of what research could not measure.
  const leader = insights.filter((i) => (i.interest_level ?? 0) > 0).sort((a, b) => b.interest_level! - a.interest_level!)[0];
  const levels = leader
    ? levelsFromBatch(means, keywords.indexOf(leader.primary_keyword), leader.interest_level)
    : levelsFromBatch(means, means.indexOf(Math.max(...means)), UNMEASURED_LEVEL);

  const fresh: FreshSeries[] = [];
  const measured: Array<{ insightId: string; level: number }> = [];
  const leftover: string[] = [];
  for (const insight of insights) {
    const k = keywords.indexOf(insight.primary_keyword);
    if (
      !servableFromBatch(
        columns[k]!.points.map((p) => p.values[0] ?? 0),
        keywords.length,
      )
    ) {
      leftover.push(insight.id);
      // What the answer measured is still worth keeping: the second round groups by it.
      if (levels[k] !== null) measured.push({ insightId: insight.id, level: levels[k]! });
      continue;
    }
    fresh.push(freshSeriesOf(insight, columns[k]!, levels[k]));
  }
  // One transaction for the whole group: a few statements instead of several per member.
  await writeFreshSeries(deps, fresh, measured);
  return { served: fresh.map((f) => f.insight.id), leftover, keywords: keywords.length };
}
