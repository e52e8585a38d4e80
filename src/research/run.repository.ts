import { sql, type Selectable, type Transaction } from 'kysely';
import type { Db } from '../db/connection.js';
import type { Database, ResearchRunsTable, ResearchStepsTable } from '../db/database.js';
import type { Source } from '../domain/catalog.js';
import { newId } from '../domain/ids.js';

export type RunRow = Selectable<ResearchRunsTable>;
export type StepRow = Selectable<ResearchStepsTable>;
type DbOrTrx = Db | Transaction<Database>;

export async function createRun(
  db: DbOrTrx,
  input: { idea: string; ideaKey: string; hints: string[]; provider: string; source: Source; startedBy?: 'cli' | 'discovery' },
): Promise<RunRow> {
  return db
    .insertInto('research_runs')
    .values({
      id: newId('run'),
      idea: input.idea,
      idea_key: input.ideaKey,
      keyword_hints: JSON.stringify(input.hints),
      provider: input.provider,
      source: input.source,
      started_by: input.startedBy ?? 'cli',
      status: 'queued',
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function findRun(db: DbOrTrx, id: string): Promise<RunRow | undefined> {
  return db.selectFrom('research_runs').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function listRuns(db: DbOrTrx, limit = 20): Promise<RunRow[]> {
  return db.selectFrom('research_runs').selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

export async function latestRunForInsight(db: DbOrTrx, insightId: string): Promise<RunRow | undefined> {
  return db
    .selectFrom('research_runs')
    .selectAll()
    .where('insight_id', '=', insightId)
    .orderBy('created_at', 'desc')
    .limit(1)
    .executeTakeFirst();
}

export async function stepsOf(db: DbOrTrx, runId: string): Promise<StepRow[]> {
  return db.selectFrom('research_steps').selectAll().where('run_id', '=', runId).orderBy('step').execute();
}

/** Outputs of the steps recorded done, by step number (only `steps` when given). */
export async function doneOutputs(db: DbOrTrx, runId: string, steps?: number[]): Promise<Map<number, unknown>> {
  let query = db.selectFrom('research_steps').select(['step', 'output']).where('run_id', '=', runId).where('status', '=', 'done');
  if (steps) {
    if (steps.length === 0) return new Map();
    query = query.where('step', 'in', steps);
  }
  const rows = await query.execute();
  return new Map(rows.map((r) => [r.step, r.output]));
}

export async function setRunState(
  db: DbOrTrx,
  runId: string,
  state: { status: 'running' | 'waiting'; waitingReason?: string | null },
): Promise<void> {
  await db
    .updateTable('research_runs')
    .set({ status: state.status, waiting_reason: state.waitingReason ?? null, updated_at: sql<Date>`now()` })
    .where('id', '=', runId)
    .where('status', 'in', ['queued', 'running', 'waiting'])
    .execute();
}

/**
 * Records step `step` done and advances the run, in the caller's transaction.
 * Returns false when the step was already recorded done (a duplicate delivery
 * of the job): the primary key and the `status <> 'done'` guard make a second
 * "done" impossible, and the caller must then skip its other writes.
 */
export async function recordStepDone(
  trx: Transaction<Database>,
  row: { runId: string; step: number; name: string; output: unknown; summary: string; inputHash: string; durationMs: number; startedAt: Date; attempt: number },
  isLast: boolean,
): Promise<boolean> {
  const values = {
    run_id: row.runId,
    step: row.step,
    name: row.name,
    status: 'done' as const,
    input_hash: row.inputHash,
    output: JSON.stringify(row.output),
    summary: row.summary.slice(0, 500),
    attempts: row.attempt,
    duration_ms: row.durationMs,
    error: null,
    started_at: row.startedAt,
    finished_at: new Date(),
  };
  const written = await trx
    .insertInto('research_steps')
    .values(values)
    .onConflict((oc) =>
      oc
        .columns(['run_id', 'step'])
        .doUpdateSet({ ...values, attempts: values.attempts })
        .where('research_steps.status', '<>', 'done'),
    )
    .returning('step')
    .executeTakeFirst();
  if (!written) return false;
  const advanced = await trx
    .updateTable('research_runs')
    .set({
      next_step: row.step + 1,
      status: isLast ? 'succeeded' : 'running',
      waiting_reason: null,
      error: null,
      failed_step: null,
      updated_at: sql<Date>`now()`,
      ...(isLast ? { finished_at: new Date() } : {}),
    })
    .where('id', '=', row.runId)
    .where('next_step', '=', row.step)
    .returning('id')
    .executeTakeFirst();
  if (!advanced) throw new Error(`run ${row.runId} is not at step ${row.step}; refusing to record it`);
  return true;
}

/**
 * The same guarantee as recordStepDone in one statement, for steps with no
 * other writes: the step row is inserted only while the run is at this step,
 * and the run advances only if the row was written. A statement is atomic on
 * its own, so no explicit transaction (and 3 fewer round trips per step).
 */
export async function recordStepDoneAtomically(
  db: Db,
  row: { runId: string; step: number; name: string; output: unknown; summary: string; inputHash: string; durationMs: number; startedAt: Date; attempt: number },
): Promise<boolean> {
  const result = await db
    .with('written', (qb) =>
      qb
        .insertInto('research_steps')
        .columns(['run_id', 'step', 'name', 'status', 'input_hash', 'output', 'summary', 'attempts', 'duration_ms', 'error', 'started_at', 'finished_at'])
        .expression((eb) =>
          eb
            .selectFrom('research_runs')
            .select([
              eb.val(row.runId).as('run_id'),
              eb.val(row.step).as('step'),
              eb.val(row.name).as('name'),
              eb.val('done').as('status'),
              eb.val(row.inputHash).as('input_hash'),
              sql<string>`${JSON.stringify(row.output)}::jsonb`.as('output'),
              eb.val(row.summary.slice(0, 500)).as('summary'),
              eb.val(row.attempt).as('attempts'),
              eb.val(row.durationMs).as('duration_ms'),
              sql<null>`null`.as('error'),
              eb.val(row.startedAt).as('started_at'),
              sql<Date>`now()`.as('finished_at'),
            ])
            .where('id', '=', row.runId)
            .where('next_step', '=', row.step),
        )
        .onConflict((oc) =>
          oc
            .columns(['run_id', 'step'])
            .doUpdateSet((eb) => ({
              status: 'done',
              input_hash: eb.ref('excluded.input_hash'),
              output: eb.ref('excluded.output'),
              summary: eb.ref('excluded.summary'),
              attempts: eb.ref('excluded.attempts'),
              duration_ms: eb.ref('excluded.duration_ms'),
              error: null,
              started_at: eb.ref('excluded.started_at'),
              finished_at: eb.ref('excluded.finished_at'),
            }))
            .where('research_steps.status', '<>', 'done'),
        )
        .returning('step'),
    )
    .updateTable('research_runs')
    .set({ next_step: row.step + 1, status: 'running', waiting_reason: null, error: null, failed_step: null, updated_at: sql<Date>`now()` })
    .where('id', '=', row.runId)
    .where('next_step', '=', row.step)
    .where((eb) => eb.exists(eb.selectFrom('written').select('step')))
    .returning('research_runs.id')
    .executeTakeFirst();
  return result !== undefined;
}

/** A failed attempt: visible on the step (attempts, error) without marking it done. */
export async function recordStepAttemptFailed(
  db: DbOrTrx,
  row: { runId: string; step: number; name: string; error: string; attempt: number; startedAt: Date },
): Promise<void> {
  await db
    .insertInto('research_steps')
    .values({ run_id: row.runId, step: row.step, name: row.name, status: 'failed', attempts: row.attempt, error: row.error.slice(0, 2000), started_at: row.startedAt, finished_at: new Date() })
    .onConflict((oc) =>
      oc
        .columns(['run_id', 'step'])
        .doUpdateSet({ status: 'failed', attempts: row.attempt, error: row.error.slice(0, 2000), finished_at: new Date() })
        .where('research_steps.status', '<>', 'done'),
    )
    .execute();
}

export async function markRunFailed(db: DbOrTrx, runId: string, step: number, error: string): Promise<void> {
  await db
    .updateTable('research_runs')
    .set({ status: 'failed', error: error.slice(0, 2000), failed_step: step, waiting_reason: null, updated_at: sql<Date>`now()`, finished_at: new Date() })
    .where('id', '=', runId)
    .where('status', '<>', 'succeeded')
    .execute();
}

export async function setRunInsight(trx: Transaction<Database>, runId: string, insightId: string): Promise<void> {
  await trx.updateTable('research_runs').set({ insight_id: insightId }).where('id', '=', runId).execute();
}

/** Reopens a failed run at its first unfinished step. Returns that step, or undefined if the run is not failed. */
export async function reopenRun(db: DbOrTrx, runId: string): Promise<number | undefined> {
  const row = await db
    .updateTable('research_runs')
    .set({ status: 'queued', error: null, failed_step: null, finished_at: null, updated_at: sql<Date>`now()` })
    .where('id', '=', runId)
    .where('status', '=', 'failed')
    .returning('next_step')
    .executeTakeFirst();
  return row?.next_step;
}

/** Unfinished runs that have not moved for `olderThanMs`: candidates for the sweeper. */
export async function quietUnfinishedRuns(db: DbOrTrx, olderThanMs: number, limit = 500): Promise<RunRow[]> {
  return db
    .selectFrom('research_runs')
    .selectAll()
    .where('status', 'in', ['queued', 'running', 'waiting'])
    .where('updated_at', '<', new Date(Date.now() - olderThanMs))
    .orderBy('updated_at')
    .limit(limit)
    .execute();
}
