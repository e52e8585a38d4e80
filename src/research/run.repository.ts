import { currentTraceparent } from '../observability/tracing.js';
import { sql, type Selectable, type Transaction } from 'kysely';
import type { Db } from '../db/connection.js';
import type { Database, ResearchRunsTable, ResearchStepsTable, ResearchVisibility } from '../db/database.js';
import type { Source } from '../domain/catalog.js';
import type { DiscoveryEvidence } from '../domain/trends/google/discovery.js';
import { newId } from '../domain/ids.js';
import { CURRENT_CHAIN } from '../domain/research/step-names.js';

export type RunRow = Selectable<ResearchRunsTable>;
export type StepRow = Selectable<ResearchStepsTable>;
type DbOrTrx = Db | Transaction<Database>;

/**
 * A step's status as the API, the pages and the report show it: what the step recorded, else the
 * run's own status (running, waiting) for the step it is on; else, once the run has ended (failed
 * or cancelled), "not run": it never will be; else pending.
 */
export function shownStepStatus(run: Pick<RunRow, 'next_step' | 'status'>, step: number, recorded: string | undefined): string {
  if (recorded !== undefined) return recorded;
  if (run.status === 'failed' || run.status === 'cancelled' || run.status === 'succeeded') return 'not run';
  return step === run.next_step && (run.status === 'running' || run.status === 'waiting') ? run.status : 'pending';
}

export async function createRun(
  db: DbOrTrx,
  input: {
    idea: string;
    ideaKey: string;
    hints: string[];
    provider: string;
    source: Source;
    startedBy?: 'cli' | 'discovery' | 'demo' | 'api';
    discovery?: DiscoveryEvidence;
    /** The account that submitted it through the API. */
    accountId?: string;
    /** The market ('' worldwide); unset: TRENDS_GEO when the run's steps ask. */
    geo?: string;
    language?: string;
    visibility?: ResearchVisibility;
    /** The chain of steps the run runs (StepChain.id); unset: today's (CURRENT_CHAIN). */
    chain?: string;
  },
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
      discovery: input.discovery ? JSON.stringify(input.discovery) : null,
      status: 'queued',
      account_id: input.accountId ?? null,
      geo: input.geo ?? null,
      ...(input.language ? { language: input.language } : {}),
      visibility: input.visibility ?? 'public',
      chain: input.chain ?? CURRENT_CHAIN,
      // The submission's span (research-service.ts), whose child every step's span is; null when tracing is off.
      trace_id: currentTraceparent() ?? null,
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

/** Outputs of the steps recorded done, by step name (only the steps `names` when given). */
export async function doneOutputs(db: DbOrTrx, runId: string, names?: readonly string[]): Promise<Map<string, unknown>> {
  let query = db.selectFrom('research_steps').select(['name', 'output']).where('run_id', '=', runId).where('status', '=', 'done');
  if (names) {
    if (names.length === 0) return new Map();
    query = query.where('name', 'in', names);
  }
  const rows = await query.execute();
  return new Map(rows.map((r) => [r.name, r.output]));
}

/**
 * A worker takes up a run at `step`: marks it running and returns it, in one
 * statement, if it is unfinished and at that step; undefined otherwise (the
 * caller then reads the run to see why).
 */
/** Research runs of a provider not yet finished (queued, running or waiting): `insights budget` shows those waiting on Google. */
export async function countUnfinishedRuns(db: DbOrTrx, provider: string): Promise<number> {
  const { n } = await db
    .selectFrom('research_runs')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('provider', '=', provider)
    .where('status', 'in', ['queued', 'running', 'waiting'])
    .executeTakeFirstOrThrow();
  return Number(n);
}

export async function claimRun(db: DbOrTrx, runId: string, step: number): Promise<RunRow | undefined> {
  return db
    .updateTable('research_runs')
    .set({ status: 'running', waiting_reason: null, updated_at: sql<Date>`now()` })
    .where('id', '=', runId)
    .where('next_step', '=', step)
    .where('status', 'in', ['queued', 'running', 'waiting'])
    .returningAll()
    .executeTakeFirst();
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
 * Returns false, writing nothing, when the run is finished or not at this step
 * (a duplicate or stale delivery of the job); the caller must then skip its
 * other writes. The run row is advanced first, so its row lock orders
 * concurrent deliveries, and the `status <> 'done'` guard on the step row
 * makes a second "done" impossible. The last step leaves the run running, past
 * its last step: it succeeds in markRunSucceeded, once it is published.
 */
export async function recordStepDone(trx: Transaction<Database>, row: StepDoneRow): Promise<boolean> {
  const advanced = await trx
    .updateTable('research_runs')
    .set({
      next_step: row.step + 1,
      status: 'running',
      waiting_reason: null,
      error: null,
      failed_step: null,
      updated_at: sql<Date>`now()`,
    })
    .where('id', '=', row.runId)
    .where('next_step', '=', row.step)
    .where('status', 'in', ['queued', 'running', 'waiting'])
    .returning('id')
    .executeTakeFirst();
  if (!advanced) return false;
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
    .onConflict((oc) => oc.columns(['run_id', 'name']).doUpdateSet(values).where('research_steps.status', '<>', 'done'))
    .returning('step')
    .executeTakeFirst();
  // The run was at this step, so the step cannot be done yet; if it is, roll back.
  if (!written) throw new Error(`step ${row.name} of run ${row.runId} is already done but the run was at it; refusing to record it twice`);
  return true;
}

export interface StepDoneRow {
  runId: string;
  /** The step's position in its run's chain: the run advances from it, and a person reads it. */
  step: number;
  /** The step: its output is stored, and read, by this name. */
  name: string;
  output: unknown;
  /** The output already serialised (JSON.stringify(output ?? null)), when the caller has it. */
  outputJson?: string;
  summary: string;
  inputHash: string;
  durationMs: number;
  startedAt: Date;
  attempt: number;
}

/**
 * The same guarantee as recordStepDone for many steps of different runs in
 * one statement (group commit; see StepRecorder). A step row is written only
 * while its run is unfinished and at that step, and a run advances only if its
 * row was written. A statement is atomic, so each step's output and its "done"
 * mark commit together. Returns the `runId:name` keys that were recorded; a
 * step missing from it was already done or its run has moved on.
 *
 * The rows travel as one jsonb parameter (jsonb_to_recordset), so the
 * statement text, and Postgres' parse of it, is the same for any batch size.
 */
export async function recordStepsDone(db: Db, rows: StepDoneRow[]): Promise<Set<string>> {
  if (rows.length === 0) return new Set();
  // Spliced rather than re-serialised: outputs can be the bulk of the batch.
  const input = `[${rows
    .map((r) => {
      const fields = JSON.stringify({
        run_id: r.runId,
        step: r.step,
        name: r.name,
        input_hash: r.inputHash,
        summary: r.summary.slice(0, 500),
        attempts: r.attempt,
        duration_ms: r.durationMs,
        started_at: r.startedAt.toISOString(),
      });
      return `${fields.slice(0, -1)},"output":${r.outputJson ?? JSON.stringify(r.output ?? null)}}`;
    })
    .join(',')}]`;
  const { rows: recorded } = await sql<{ run_id: string; name: string }>`
    with input as (
      select i.* from jsonb_to_recordset(${input}::jsonb) as i(
        run_id text, step integer, name text, input_hash text, output jsonb,
        summary text, attempts integer, duration_ms integer, started_at timestamptz)
      join research_runs r on r.id = i.run_id and r.next_step = i.step and r.status in ('queued', 'running', 'waiting')
    ),
    written as (
      insert into research_steps (run_id, step, name, status, input_hash, output, summary, attempts, duration_ms, error, started_at, finished_at)
      select run_id, step, name, 'done', input_hash, output, summary, attempts, duration_ms, null, started_at, now() from input
      on conflict (run_id, name) do update set
        status = 'done', input_hash = excluded.input_hash, output = excluded.output, summary = excluded.summary,
        attempts = excluded.attempts, duration_ms = excluded.duration_ms, error = null,
        started_at = excluded.started_at, finished_at = excluded.finished_at
      where research_steps.status <> 'done'
      returning run_id, step, name
    )
    update research_runs r
       set next_step = w.step + 1, status = 'running', waiting_reason = null, error = null, failed_step = null, updated_at = now()
      from written w
     where r.id = w.run_id and r.next_step = w.step
    returning r.id as run_id, w.name`.execute(db);
  return new Set(recorded.map((r) => stepKey(r.run_id, r.name)));
}

export const stepKey = (runId: string, name: string): string => `${runId}:${name}`;

/** A failed attempt: visible on the step (attempts, error) without marking it done. */
export async function recordStepAttemptFailed(
  db: DbOrTrx,
  row: { runId: string; step: number; name: string; error: string; attempt: number; startedAt: Date },
): Promise<void> {
  await db
    .insertInto('research_steps')
    .values({
      run_id: row.runId,
      step: row.step,
      name: row.name,
      status: 'failed',
      attempts: row.attempt,
      error: row.error.slice(0, 2000),
      started_at: row.startedAt,
      finished_at: new Date(),
    })
    .onConflict((oc) =>
      oc
        .columns(['run_id', 'name'])
        .doUpdateSet({ status: 'failed', attempts: row.attempt, error: row.error.slice(0, 2000), finished_at: new Date() })
        .where('research_steps.status', '<>', 'done'),
    )
    .execute();
}

export async function markRunFailed(db: DbOrTrx, runId: string, step: number, error: string): Promise<RunRow | undefined> {
  return (
    db
      .updateTable('research_runs')
      .set({
        status: 'failed',
        error: error.slice(0, 2000),
        failed_step: step,
        waiting_reason: null,
        updated_at: sql<Date>`now()`,
        finished_at: new Date(),
      })
      .where('id', '=', runId)
      // Neither a succeeded nor a cancelled run becomes failed.
      .where('status', 'in', ['queued', 'running', 'waiting'])
      .returningAll()
      .executeTakeFirst()
  );
}

/**
 * Marks a run whose every step is recorded (next_step past `lastStep`) as
 * succeeded. Called only after its writes were announced to the API (the
 * read-model version bump), so a client that sees the run succeeded and then
 * asks the API never gets an answer cached from before them.
 */
export async function markRunSucceeded(db: DbOrTrx, runId: string, lastStep: number): Promise<RunRow | undefined> {
  return db
    .updateTable('research_runs')
    .set({ status: 'succeeded', waiting_reason: null, updated_at: sql<Date>`now()`, finished_at: new Date() })
    .where('id', '=', runId)
    .where('next_step', '>', lastStep)
    .where('status', 'in', ['queued', 'running', 'waiting'])
    .returningAll()
    .executeTakeFirst();
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

/** Of these runs, the ones not yet finished (queued, running or waiting). */
export async function unfinishedRunIds(db: DbOrTrx, ids: readonly string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('research_runs')
    .select('id')
    .where('id', 'in', ids)
    .where('status', 'in', ['queued', 'running', 'waiting'])
    .execute();
  return rows.map((r) => r.id);
}

/** Runs started today (UTC) by this starter: discovery's daily cap counts them. */
export async function countRunsStartedToday(db: DbOrTrx, startedBy: RunRow['started_by']): Promise<number> {
  const row = await db
    .selectFrom('research_runs')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('started_by', '=', startedBy)
    .where('created_at', '>=', sql<Date>`date_trunc('day', now() at time zone 'utc') at time zone 'utc'`)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The latest runs that succeeded asking this provider (named in their provider list), newest first: what a run costs is priced on them. */
export async function latestSucceededRunsAsking(db: DbOrTrx, provider: string, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('research_runs')
    .select('id')
    .where('status', '=', 'succeeded')
    .where(sql<boolean>`position(${provider} in provider) > 0`)
    .orderBy('finished_at', 'desc')
    .limit(limit)
    .execute();
  return rows.map((r) => r.id);
}

/** Whether a run for this idea (its normalised key) is under way or succeeded: a failed one may be tried again. */
export async function liveRunExistsForIdeaKey(db: DbOrTrx, ideaKey: string): Promise<boolean> {
  return (
    (await db
      .selectFrom('research_runs')
      .select('id')
      .where('idea_key', '=', ideaKey)
      .where('status', '<>', 'failed')
      .executeTakeFirst()) !== undefined
  );
}

/** Whether research has ever been run here (the demo runs start only on a fresh machine). */
export async function anyRunExists(db: DbOrTrx): Promise<boolean> {
  return (await db.selectFrom('research_runs').select('id').limit(1).executeTakeFirst()) !== undefined;
}
