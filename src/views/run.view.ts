// A research run as every front door shows it (GET /api/research-runs and /{id}, its event stream, the
// insight's report trace, the account's Research pages, `insights runs show`, an MCP server): its summary
// (status, progress, outcome in public words, links), its steps, its place in the queue, the list of an
// account's runs and which run an account may see. Read from the repositories; no transport here.
import type { Db } from '../db/connection.js';
import { RUN_STATUSES, type RunStatus } from '../db/database.js';
import { decodeCreatedCursor, encodeCreatedCursor, InvalidCursorError, type CreatedCursor } from '../domain/cursor.js';
import { isId } from '../domain/ids.js';
import { givesAllowanceBack, publicFailure, publicRunAdvice, publicRunError, publicWaitingReason } from '../domain/public-error.js';
import { invalidParameter, Refusal } from '../domain/refusal.js';
import { findInsight } from '../insights/insight.repository.js';
import { runWasRefunded } from '../research/allowance.repository.js';
import { traceIdOf } from '../observability/tracing.js';
import type { ResearchService, RunSchedule } from '../research/research-service.js';
import { failedStepOf, runProgress, runSteps } from '../research/run-steps.js';
import { findRun, stepsOf, type RunRow, type StepRow } from '../research/run.repository.js';
import type { Viewer } from './insight.view.js';

/** A run in a list, an event or an answer to a submission: where it stands and what to do about it, in public words. */
export function runSummary(run: RunRow) {
  const self = `/api/research-runs/${run.id}`;
  return {
    id: run.id,
    idea: run.idea,
    geo: run.geo,
    language: run.language,
    visibility: run.visibility,
    status: run.status,
    progress: runProgress(run),
    waiting_reason: publicWaitingReason(run.waiting_reason),
    error: publicRunError(run.error, failedStepOf(run)),
    what_to_do: publicRunAdvice(run, givesAllowanceBack(run)),
    insight_id: run.insight_id,
    created_at: run.created_at.toISOString(),
    finished_at: run.finished_at?.toISOString() ?? null,
    cancelled_at: run.cancelled_at?.toISOString() ?? null,
    trace_id: traceIdOf(run.trace_id) ?? null,
    links: { self, events: `${self}/events`, insight: run.insight_id ? `/api/insights/${run.insight_id}` : null },
  };
}
export type RunSummary = ReturnType<typeof runSummary>;

/**
 * Every step of the run's chain in its order, as shown: its status, attempts, timings, output summary and
 * the kind of failure of its last attempt. `operator` keeps the error as recorded (upstream text included),
 * for `insights runs show`; everyone else gets its public words.
 */
export function runStepViews(run: RunRow, recorded: readonly StepRow[], errors: 'public' | 'operator' = 'public') {
  return runSteps(run, recorded).map(({ step, name, status, recorded: s }) => ({
    step,
    name,
    status,
    attempts: s?.attempts ?? 0,
    duration_ms: s?.duration_ms ?? null,
    started_at: s?.started_at?.toISOString() ?? null,
    finished_at: s?.finished_at?.toISOString() ?? null,
    summary: s?.summary ?? null,
    error: s?.error ? (errors === 'operator' ? s.error : publicFailure(s.error)) : null,
  }));
}
export type RunStepView = ReturnType<typeof runStepViews>[number];

/** GET /api/research-runs/{id}'s answer: the run, its steps, whether its allowance came back, and the insight's evidence once it has one. */
export async function runDetail(db: Db, run: RunRow, viewer: Viewer) {
  const [recorded, insight, refunded] = await Promise.all([
    stepsOf(db, run.id),
    run.insight_id ? findInsight(db, run.insight_id, viewer) : undefined,
    run.status === 'failed' && run.account_id !== null ? runWasRefunded(db, run.id) : false,
  ]);
  return {
    data: {
      id: run.id,
      idea: run.idea,
      status: run.status,
      provider: run.provider,
      insight_id: run.insight_id,
      waiting_reason: publicWaitingReason(run.waiting_reason),
      error: publicRunError(run.error, failedStepOf(run)),
      failed_step: run.failed_step,
      what_to_do: publicRunAdvice(run, refunded),
      allowance_refunded: refunded,
      geo: run.geo,
      visibility: run.visibility,
      progress: runProgress(run),
      created_at: run.created_at.toISOString(),
      finished_at: run.finished_at?.toISOString() ?? null,
      discovery: run.discovery ?? null,
      trace_id: traceIdOf(run.trace_id) ?? null,
      steps: runStepViews(run, recorded),
      dimensions: insight?.dimensions ?? null,
    },
  };
}
export type RunDetail = Awaited<ReturnType<typeof runDetail>>;

/** Where a run stands in the queue, and when it should start and finish. */
export const runScheduleView = (s: RunSchedule) => ({
  position: s.position,
  estimated_start_at: s.estimatedStartAt?.toISOString() ?? null,
  estimated_finish_at: s.estimatedFinishAt?.toISOString() ?? null,
  basis: s.basis,
  estimate_note: s.estimateNote,
});

/** A run the asker may see: its account's, one no account owns (an operator's, discovery's), or a public one; else notFound. */
export async function visibleRun(db: Db, id: string, viewer: Viewer): Promise<RunRow> {
  const run = isId('run', id) ? await findRun(db, id) : undefined;
  // An account's public research is public with its run (its insight's /research shows it).
  if (!run || (run.account_id !== null && run.account_id !== viewer.accountId && run.visibility !== 'public')) {
    throw new Refusal('notFound', `No research run has the id "${id.slice(0, 64)}".`);
  }
  return run;
}

/** One state or a comma list of them, each checked. */
export function runStatesOf(raw: string | undefined): RunStatus[] | undefined {
  if (raw === undefined) return undefined;
  const states = [...new Set(raw.split(',').map((s) => s.trim()))];
  for (const state of states) {
    if (!(RUN_STATUSES as readonly string[]).includes(state))
      throw invalidParameter('state', `has an unknown value "${state.slice(0, 40)}"`, RUN_STATUSES);
  }
  return states as RunStatus[];
}

function decodeRunCursor(raw: string): CreatedCursor {
  try {
    return decodeCreatedCursor(raw, 'run');
  } catch (error) {
    if (error instanceof InvalidCursorError) throw invalidParameter('cursor', error.reason);
    throw error;
  }
}

/** An account's runs, newest first, filtered by state, a page at a time (GET /api/research-runs). */
export async function runListView(service: ResearchService, viewer: Viewer, query: { limit: number; state?: string; cursor?: string }) {
  const page = await service.list(viewer.accountId, {
    limit: query.limit,
    ...(query.state !== undefined ? { states: runStatesOf(query.state) } : {}),
    ...(query.cursor !== undefined ? { after: decodeRunCursor(query.cursor) } : {}),
  });
  const last = page.rows.at(-1);
  return {
    data: page.rows.map(runSummary),
    next_cursor: page.hasMore && last ? encodeCreatedCursor({ createdAt: last.created_at, id: last.id }) : null,
  };
}
