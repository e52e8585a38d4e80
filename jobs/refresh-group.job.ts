// ingest / refresh-group: up to five insights of comparable popularity
// refreshed from one Google request (see domain/trends/google/batching.ts). The
// members that kept their precision in the answer are written together, in one
// transaction. The answer also measures the members' popularity against each other;
// a member left without precision keeps that measure, and is regrouped with
// the other leftovers once every group is done (refresh-leftovers.job.ts), or,
// in that second round, gets a request of its own (refresh-insight). The
// refresh itself is src/refresh/group.ts.
import type { Static } from '@sinclair/typebox';
import type { Job, Queue } from 'bullmq';
import { findActiveInsights, type InsightRow } from '../src/insights/insight.repository.js';
import { enqueueMany } from '../src/queue/enqueue.js';
import { JOB, type RefreshGroupPayload } from '../src/queue/job-catalogue.js';
import { fetchInterest, type RefreshDeps } from '../src/refresh/fetch.js';
import { refreshGroup } from '../src/refresh/group.js';

export function refreshGroupProcessor(deps: RefreshDeps & { ingest: Queue }) {
  return async (job: Job<Static<typeof RefreshGroupPayload>>, token?: string) => {
    const { insightIds, round = 2 } = job.data;
    const insights: InsightRow[] = (await findActiveInsights(deps.db, insightIds)).filter((r) => r.source !== 'recorded-series');
    if (insights.length === 0) return { skipped: 'no active insights left in the group' };
    const { served, leftover, keywords } = await refreshGroup(deps, insights, (provider, keywords) =>
      fetchInterest(deps, job, token, provider, keywords, `refresh of ${insightIds.length} insights`),
    );
    if (round === 2 && leftover.length > 0) {
      await enqueueMany(
        deps.ingest,
        JOB.refreshInsight,
        leftover.map((id) => ({ data: { insightId: id }, key: [String(job.id)] })),
      );
    }
    // Round 1 hands its leftovers to the parent (refresh-leftovers), which regroups them.
    return { served, leftover, keywords };
  };
}
