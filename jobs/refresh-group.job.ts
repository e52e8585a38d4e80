// ingest / refresh-group: up to five insights of comparable popularity
// refreshed from one Google request (see domain/trends/batching.ts). The
// members that kept their precision in the answer are written together, in one
// transaction. The answer also measures the members' popularity against each other;
// a member left without precision keeps that measure, and is regrouped with
// the other leftovers once every group is done (refresh-leftovers.job.ts), or,
// in that second round, gets a request of its own (refresh-insight).
import { UnrecoverableError, type Job, type Queue } from 'bullmq';
import type { Static } from '@sinclair/typebox';
import { levelsFromBatch, servableFromBatch, UNMEASURED_LEVEL } from '../src/domain/trends/batching.js';
import { findActiveInsights, type InsightRow } from '../src/insights/insight.repository.js';
import { enqueueMany } from '../src/queue/enqueue.js';
import { JOB, type RefreshGroupPayload } from '../src/queue/job-catalogue.js';
import {
  columnOf,
  fetchInterest,
  freshSeriesOf,
  providerOf,
  writeFreshSeries,
  type FreshSeries,
  type RefreshDeps,
} from './refresh-insight.job.js';

export function refreshGroupProcessor(deps: RefreshDeps & { ingest: Queue }) {
  return async (job: Job<Static<typeof RefreshGroupPayload>>, token?: string) => {
    const { insightIds, round = 2 } = job.data;
    const insights: InsightRow[] = (await findActiveInsights(deps.db, insightIds)).filter((r) => r.source !== 'demo');
    if (insights.length === 0) return { skipped: 'no active insights left in the group' };
    const provider = providerOf(insights[0]!, deps.provider);
    const keywords = [...new Set(insights.map((i) => i.primary_keyword))];
    const answer = await fetchInterest(deps, job, token, provider, keywords, `refresh of ${insightIds.length} insights`);
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
    const served = fresh.map((f) => f.insight.id);
    if (round === 2 && leftover.length > 0) {
      await enqueueMany(
        deps.ingest,
        JOB.refreshInsight,
        leftover.map((id) => ({ data: { insightId: id }, key: [String(job.id)] })),
      );
    }
    // Round 1 hands its leftovers to the parent (refresh-leftovers), which regroups them.
    return { served, leftover, keywords: keywords.length };
  };
}
