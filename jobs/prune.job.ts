// maintenance / prune: what grows with use is kept for a bounded time. Webhook
// attempts older than WEBHOOK_ATTEMPTS_KEEP_DAYS (the delivery itself, with
// its last status, stays), and the daily counts of replays and pings past the
// days anyone reads them. In batches, so one run never holds a long lock.
import type { Db } from '../src/db/connection.js';
import { pruneAttempts, pruneSendCounts } from '../src/webhooks/delivery.repository.js';

export interface PruneDeps {
  db: Db;
  attemptsKeepDays: number;
}

export function pruneProcessor(deps: PruneDeps) {
  return async () => ({ attempts: await pruneAttempts(deps.db, deps.attemptsKeepDays), sendCounts: await pruneSendCounts(deps.db, 40) });
}
