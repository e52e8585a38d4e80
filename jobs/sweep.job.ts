// maintenance / sweep: re-enqueue runs whose next step was committed but never
// enqueued (a crash between the two), or whose job was lost.
import type { Db } from '../src/db/connection.js';
import type { ResearchChain } from '../src/research/chain.js';
import { quietUnfinishedRuns } from '../src/research/run.repository.js';
import { STEP_COUNT } from '../src/research/steps.js';

export function sweepProcessor(deps: { db: Db; chain: ResearchChain; quietMs?: number }) {
  return async () => {
    const runs = await quietUnfinishedRuns(deps.db, deps.quietMs ?? 60_000);
    let resumed = 0;
    for (const run of runs) {
      if (run.next_step > STEP_COUNT) continue;
      await deps.chain.enqueueStep(run.id, run.next_step);
      resumed += 1;
    }
    return { checked: runs.length, resumed };
  };
}
