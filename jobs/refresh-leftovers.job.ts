// ingest / refresh-leftovers: the parent of the day's refresh groups. Once
// every group has run, the insights their answers left without precision (a
// partner far more popular) are regrouped by the popularity those answers
// measured, five to a request again; one left alone gets its own request.
import type { Job, Queue } from 'bullmq';
import type { Db } from '../src/db/connection.js';
import { groupByLevel } from '../src/domain/trends/batching.js';
import { interestLevelsOf } from '../src/insights/insight.repository.js';
import { INGEST_JOB_OPTIONS, JOBS } from '../src/queue/queues.js';

export function refreshLeftoversProcessor(deps: { db: Db; ingest: Queue }) {
  return async (job: Job) => {
    const results = Object.values(await job.getChildrenValues()) as Array<{ leftover?: string[] } | undefined>;
    const ids = [...new Set(results.flatMap((r) => r?.leftover ?? []))];
    if (ids.length === 0) return { leftover: 0, groups: 0 };
    const groups = groupByLevel(await interestLevelsOf(deps.db, ids));
    await deps.ingest.addBulk(
      groups.map((group, i) =>
        group.length === 1
          ? {
              name: JOBS.refreshInsight,
              data: { insightId: group[0]!.id },
              opts: { ...INGEST_JOB_OPTIONS, jobId: `${job.id}-alone-${group[0]!.id}` },
            }
          : {
              name: JOBS.refreshGroup,
              data: { insightIds: group.map((g) => g.id), round: 2 },
              opts: { ...INGEST_JOB_OPTIONS, jobId: `${job.id}-round2-${i}` },
            },
      ),
    );
    return { leftover: ids.length, groups: groups.length };
  };
}
