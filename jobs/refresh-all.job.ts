// ingest / refresh-all: one refresh-insight job per researched insight. Job ids
// carry the UTC day, so a second trigger the same day adds nothing, and jobs
// delayed by a Google 429 storm still run later: the schedule catches up.
import type { Job, Queue } from 'bullmq';
import type { Db } from '../src/db/connection.js';
import { INGEST_JOB_OPTIONS, JOBS } from '../src/queue/queues.js';

export function refreshJobId(insightId: string, day: string): string {
  return `refresh-${insightId}-${day.replaceAll('-', '')}`;
}

export function refreshAllProcessor(deps: { db: Db; ingest: Queue }) {
  return async (_job: Job) => {
    const day = new Date().toISOString().slice(0, 10);
    let after = '';
    let enqueued = 0;
    for (;;) {
      const ids = await deps.db
        .selectFrom('insights')
        .select('id')
        .where('status', '=', 'active')
        .where('source', '<>', 'demo')
        .where('id', '>', after)
        .orderBy('id')
        .limit(1000)
        .execute();
      if (ids.length === 0) break;
      await deps.ingest.addBulk(
        ids.map(({ id }) => ({ name: JOBS.refreshInsight, data: { insightId: id }, opts: { ...INGEST_JOB_OPTIONS, jobId: refreshJobId(id, day) } })),
      );
      enqueued += ids.length;
      after = ids.at(-1)!.id;
    }
    return { enqueued, day };
  };
}
