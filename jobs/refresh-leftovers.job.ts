// ingest / refresh-leftovers: the parent of the day's refresh groups. Once
// every group has run, the insights their answers left without precision (a
// partner far more popular) are regrouped by the popularity those answers
// measured, five to a request again; one left alone gets its own request.
import type { Job, Queue } from 'bullmq';
import type { Db } from '../src/db/connection.js';
import { groupByLevel } from '../src/domain/trends/google/batching.js';
import { interestLevelsOf } from '../src/insights/insight.repository.js';
import { enqueueMany } from '../src/queue/enqueue.js';
import { JOB } from '../src/queue/job-catalogue.js';

export function refreshLeftoversProcessor(deps: { db: Db; ingest: Queue }) {
  return async (job: Job) => {
    const results = Object.values(await job.getChildrenValues()) as Array<{ leftover?: string[] } | undefined>;
    const ids = [...new Set(results.flatMap((r) => r?.leftover ?? []))];
    if (ids.length === 0) return { leftover: 0, groups: 0 };
    const groups = groupByLevel(await interestLevelsOf(deps.db, ids));
    const parent = String(job.id);
    const alone = groups.filter((g) => g.length === 1);
    await enqueueMany(
      deps.ingest,
      JOB.refreshInsight,
      alone.map((g) => ({ data: { insightId: g[0]!.id }, key: [parent] })),
    );
    await enqueueMany(
      deps.ingest,
      JOB.refreshGroup,
      groups.flatMap((g, i) => (g.length > 1 ? [{ data: { insightIds: g.map((m) => m.id), round: 2 as const }, key: [parent, i] }] : [])),
    );
    return { leftover: ids.length, groups: groups.length };
  };
}
