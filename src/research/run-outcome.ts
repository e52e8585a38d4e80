// A run's end, and the webhook event that tells its account: a run an account
// submitted through the API ends in `research.completed` or `research.failed`,
// written in the transaction that ends it (the outbox), and delivered only to
// that account's own subscriptions (webhook matching reads account_id from the
// payload). Runs of operators and discovery announce nothing of this kind:
// their insight's own insight.created/updated does.
import type { Kysely } from 'kysely';
import type { Db } from '../db/connection.js';
import type { Database } from '../db/database.js';
import { failureKind, givesAllowanceBack } from '../domain/public-error.js';
import { researchRunsSucceeded } from '../observability/metrics.js';
import { recordEvents } from '../webhooks/event.repository.js';
import { refundFailedRun } from './allowance.repository.js';
import { markRunFailed, markRunSucceeded, type RunRow } from './run.repository.js';

export type RunEventType = 'research.completed' | 'research.failed';

function eventOf(type: RunEventType, run: RunRow) {
  return {
    type,
    insightId: type === 'research.completed' ? run.insight_id : null,
    payload: {
      account_id: run.account_id,
      run_id: run.id,
      idea: run.idea,
      geo: run.geo,
      status: run.status,
      insight_id: run.insight_id,
      failed_step: run.failed_step,
      links: { run: `/api/research-runs/${run.id}`, insight: run.insight_id ? `/api/insights/${run.insight_id}` : null },
    },
  };
}

/** Marks the run succeeded (see markRunSucceeded); answers the event to announce, if one was written. */
export async function succeedRun(db: Db, runId: string, lastStep: number): Promise<string | undefined> {
  const { succeeded, eventId } = await (db as Kysely<Database>).transaction().execute(async (trx) => {
    const run = await markRunSucceeded(trx, runId, lastStep);
    if (!run?.account_id) return { succeeded: run !== undefined, eventId: undefined };
    const [eventId] = await recordEvents(trx, [eventOf('research.completed', run)]);
    return { succeeded: true, eventId };
  });
  // Counted once committed, by the one delivery that marked it (Google's requests per run divide by it).
  if (succeeded) researchRunsSucceeded.inc();
  return eventId;
}

/**
 * Marks the run failed at `step`; answers the event to announce, if one was written. A run an
 * account submitted through the API (which spent a run of its allowance) that failed because the
 * provider could not be reached or refused the requests gets that run back, in the same
 * transaction, once however often it fails (refundFailedRun).
 */
export async function failRun(db: Db, runId: string, step: number, error: string): Promise<string | undefined> {
  return (db as Kysely<Database>).transaction().execute(async (trx) => {
    const run = await markRunFailed(trx, runId, step, error);
    if (!run?.account_id) return undefined;
    if (givesAllowanceBack(run))
      await refundFailedRun(trx, { id: run.id, accountId: run.account_id, chargedAt: run.created_at }, failureKind(error));
    const [eventId] = await recordEvents(trx, [eventOf('research.failed', run)]);
    return eventId;
  });
}
