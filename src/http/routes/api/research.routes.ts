// /api/research-runs: an account's research on demand (submit, follow, cancel,
// a stream of its progress) through the same ResearchService the CLI uses; and
// the report of any run the asker may see (its own, or an operator's).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { strictJsonValidator } from '../../json-body.js';
import { KEY_SHAPE, sha256 } from '../../idempotency.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '../../../db/connection.js';
import { RESEARCH_VISIBILITIES, RUN_STATUSES, type RunStatus } from '../../../db/database.js';
import { isId } from '../../../domain/ids.js';
import {
  CURSOR_MAX_LENGTH,
  decodeCreatedCursor,
  encodeCreatedCursor,
  InvalidCursorError,
  type CreatedCursor,
} from '../../../domain/cursor.js';
import { MAX_IDEA_LENGTH } from '../../../domain/research/idea.js';
import { InvalidIdeaError } from '../../../research/chain.js';
import {
  IdempotencyKeyReusedError,
  NotAnswerableError,
  ResearchAllowanceSpentError,
  RunNotCancellableError,
  type ResearchService,
  type RunSchedule,
} from '../../../research/research-service.js';
import { invalidParam } from '../../problem.js';
import { toInsightDto } from './insights.routes.js';
import { InsightSchema, stringEnum } from '../../schemas.js';
import { givesAllowanceBack, publicFailure, publicRunAdvice, publicRunError, publicWaitingReason } from '../../../domain/public-error.js';
import { runWasRefunded } from '../../../research/allowance.repository.js';
import { findInsight } from '../../../insights/insight.repository.js';
import { findRun, latestRunForInsight, stepsOf, type RunRow } from '../../../research/run.repository.js';
import { failedStepOf, runProgress, runSteps } from '../../../research/run-steps.js';
import { STEP_COUNT } from '../../../research/step-contract.js';
import { problem, ProblemError } from '../../problem.js';
import { requireInsight } from './require-insight.js';
import { DimensionSchema, errorResponses, IdParams, NoQuery } from '../../schemas.js';

const DiscoverySchema = Type.Object(
  {
    source: Type.Literal('google-trending-rss'),
    geo: Type.String(),
    query: Type.String({ description: 'The trending search as the feed listed it' }),
    approx_traffic: Type.String({ description: "Google's approximate traffic bucket, e.g. 10K+" }),
    published: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    news: Type.Array(Type.Object({ title: Type.String(), source: Type.String(), url: Type.String() })),
  },
  { description: "What discovery saw in Google's trending feed when it started the run" },
);

const ProgressSchema = Type.Object(
  {
    done: Type.Integer({ minimum: 0, description: 'Steps recorded done' }),
    total: Type.Integer({
      description: `Steps in the run's own chain: ${STEP_COUNT} today; a run started before a deploy that changed the steps keeps its own`,
    }),
    current: Type.Union([Type.String(), Type.Null()], { description: 'The step under way or next, by name, while the run is unfinished' }),
  },
  { description: `Step n of ${STEP_COUNT}` },
);

const progressOf = (run: RunRow) => runProgress(run);

const WhatToDoSchema = Type.Union([Type.String(), Type.Null()], {
  description: 'For a failed or waiting run: what to do about it, in a sentence; null otherwise',
});

const ResearchReportSchema = Type.Object(
  {
    data: Type.Object({
      id: Type.String(),
      idea: Type.String(),
      status: Type.String(),
      provider: Type.String(),
      insight_id: Type.Union([Type.String(), Type.Null()]),
      waiting_reason: Type.Union([Type.String(), Type.Null()]),
      error: Type.Union([Type.String(), Type.Null()], {
        description: 'Which step failed and what kind of failure it was; the full error (upstream text included) is kept for operators',
      }),
      failed_step: Type.Union([Type.Integer(), Type.Null()]),
      what_to_do: WhatToDoSchema,
      allowance_refunded: Type.Boolean({
        description:
          'Whether the run of the research allowance this run spent was given back (it failed because the provider could not be reached or refused the requests)',
      }),
      geo: Type.Union([Type.String(), Type.Null()], {
        description: "The market asked about ('' worldwide); null: the service's default (runs from before markets)",
      }),
      visibility: stringEnum(RESEARCH_VISIBILITIES),
      progress: ProgressSchema,
      created_at: Type.String({ format: 'date-time' }),
      finished_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
      discovery: Type.Union([DiscoverySchema, Type.Null()], { description: 'Set for runs discovery started from the trending feed' }),
      steps: Type.Array(
        Type.Object({
          step: Type.Integer(),
          name: Type.String(),
          status: Type.String({
            description: 'done, failed (last attempt failed), running, waiting, pending, or not run (the run ended before it)',
          }),
          attempts: Type.Integer(),
          duration_ms: Type.Union([Type.Integer(), Type.Null()]),
          started_at: Type.Union([Type.String(), Type.Null()]),
          finished_at: Type.Union([Type.String(), Type.Null()]),
          summary: Type.Union([Type.String(), Type.Null()]),
          error: Type.Union([Type.String(), Type.Null()], { description: "The kind of failure of the step's last attempt" }),
        }),
      ),
      dimensions: Type.Union([Type.Record(Type.String(), DimensionSchema), Type.Null()], {
        description: 'The evidence behind each dimension (from the insight), once the run has finished',
      }),
    }),
  },
  { $id: 'ResearchReport' },
);

async function report(db: Db, run: RunRow, viewer: { accountId: string }) {
  const steps = runSteps(run, await stepsOf(db, run.id));
  const insight = run.insight_id ? await findInsight(db, run.insight_id, viewer) : undefined;
  const refunded = run.status === 'failed' && run.account_id !== null && (await runWasRefunded(db, run.id));
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
      progress: progressOf(run),
      created_at: run.created_at.toISOString(),
      finished_at: run.finished_at?.toISOString() ?? null,
      discovery: run.discovery ?? null,
      steps: steps.map(({ step, name, status, recorded: s }) => {
        return {
          step,
          name,
          status,
          attempts: s?.attempts ?? 0,
          duration_ms: s?.duration_ms ?? null,
          started_at: s?.started_at?.toISOString() ?? null,
          finished_at: s?.finished_at?.toISOString() ?? null,
          summary: s?.summary ?? null,
          error: s?.error ? publicFailure(s.error) : null,
        };
      }),
      dimensions: insight?.dimensions ?? null,
    },
  };
}

const ScheduleSchema = Type.Object(
  {
    position: Type.Integer({
      minimum: 0,
      description: 'Runs submitted before it still to finish, plus one (1: next); 0 once it has started',
    }),
    estimated_start_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    estimated_finish_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    basis: Type.String({ description: 'What the estimate rests on: the Google budget (requests a run, pace, routes) and the runs ahead' }),
    estimate_note: Type.Union([Type.String(), Type.Null()], {
      description:
        'Set (and both estimates null) while the canary or the latest run asking Google says Google cannot be reached or is blocking: why no time is promised',
    }),
  },
  { description: 'Where the run stands in the queue and when it should start and finish; estimates, not promises' },
);

const RunSummarySchema = Type.Object(
  {
    id: Type.String(),
    idea: Type.String(),
    geo: Type.Union([Type.String(), Type.Null()]),
    language: Type.String(),
    visibility: stringEnum(RESEARCH_VISIBILITIES),
    status: stringEnum(RUN_STATUSES),
    progress: ProgressSchema,
    waiting_reason: Type.Union([Type.String(), Type.Null()], { description: 'What the run waits for, and until when if known' }),
    error: Type.Union([Type.String(), Type.Null()], { description: 'Why it failed, in plain words' }),
    what_to_do: WhatToDoSchema,
    insight_id: Type.Union([Type.String(), Type.Null()]),
    created_at: Type.String({ format: 'date-time' }),
    finished_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    cancelled_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    links: Type.Object({ self: Type.String(), events: Type.String(), insight: Type.Union([Type.String(), Type.Null()]) }),
  },
  { $id: 'ResearchRunSummary' },
);
type RunSummary = Static<typeof RunSummarySchema>;

function summaryOf(run: RunRow): RunSummary {
  const self = `/api/research-runs/${run.id}`;
  return {
    id: run.id,
    idea: run.idea,
    geo: run.geo,
    language: run.language,
    visibility: run.visibility,
    status: run.status,
    progress: progressOf(run),
    waiting_reason: publicWaitingReason(run.waiting_reason),
    error: publicRunError(run.error, failedStepOf(run)),
    what_to_do: publicRunAdvice(run, givesAllowanceBack(run)),
    insight_id: run.insight_id,
    created_at: run.created_at.toISOString(),
    finished_at: run.finished_at?.toISOString() ?? null,
    cancelled_at: run.cancelled_at?.toISOString() ?? null,
    links: { self, events: `${self}/events`, insight: run.insight_id ? `/api/insights/${run.insight_id}` : null },
  };
}

const scheduleDto = (s: RunSchedule) => ({
  position: s.position,
  estimated_start_at: s.estimatedStartAt?.toISOString() ?? null,
  estimated_finish_at: s.estimatedFinishAt?.toISOString() ?? null,
  basis: s.basis,
  estimate_note: s.estimateNote,
});

const SubmitBody = Type.Object(
  {
    idea: Type.String({
      minLength: 1,
      maxLength: MAX_IDEA_LENGTH,
      description: 'The idea in a few words, e.g. "AI meal planner for busy parents"',
    }),
    geo: Type.Optional(
      Type.String({
        maxLength: 6,
        pattern: '^([A-Za-z]{2}(-[A-Za-z0-9]{1,3})?)?$',
        description: "The market: a country code (US), a region (US-CA), or '' for worldwide; default: the service's (usually worldwide)",
      }),
    ),
    language: Type.Optional(
      // Checked by the service, which says what is wrong with a tag (a pattern here only said "must be text").
      Type.String({ maxLength: 35, description: 'Language of the idea: ISO 639-1, optionally with a country (en, de, pt-BR); default en' }),
    ),
    visibility: Type.Optional(
      Type.Union(
        RESEARCH_VISIBILITIES.map((v) => Type.Literal(v)),
        { description: "private (default): the insight is your account's alone; public: it joins the catalogue" },
      ),
    ),
    refresh: Type.Optional(Type.Boolean({ description: 'Research again even if this idea was researched for this market recently' })),
  },
  { additionalProperties: false },
);

const SubmittedSchema = Type.Object({ data: RunSummarySchema, queue: ScheduleSchema }, { $id: 'ResearchRunSubmitted' });
const ReusedSchema = Type.Object(
  {
    reused: Type.Literal(true),
    detail: Type.String({ description: 'Why no run was started, and how to start one anyway' }),
    data: InsightSchema,
  },
  { $id: 'ResearchReused' },
);
const RunListSchema = Type.Object({ data: Type.Array(RunSummarySchema), next_cursor: Type.Union([Type.String(), Type.Null()]) });
const RunListQuery = Type.Object(
  {
    limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
    state: Type.Optional(Type.String({ maxLength: 100, description: `One state or a comma list of: ${RUN_STATUSES.join(', ')}` })),
    cursor: Type.Optional(Type.String({ maxLength: CURSOR_MAX_LENGTH })),
  },
  { additionalProperties: false },
);

const encodeRunCursor = (run: RunRow) => encodeCreatedCursor({ createdAt: run.created_at, id: run.id });

function decodeRunCursor(raw: string): CreatedCursor {
  try {
    return decodeCreatedCursor(raw, 'run');
  } catch (error) {
    if (error instanceof InvalidCursorError) throw invalidParam('cursor', error.reason);
    throw error;
  }
}

function statesOf(raw: string | undefined): RunStatus[] | undefined {
  if (raw === undefined) return undefined;
  const states = [...new Set(raw.split(',').map((s) => s.trim()))];
  for (const state of states) {
    if (!(RUN_STATUSES as readonly string[]).includes(state))
      throw invalidParam('state', `has an unknown value "${state.slice(0, 40)}"`, RUN_STATUSES);
  }
  return states as RunStatus[];
}

/** A run the asker may see: its account's, or one no account owns (an operator's, discovery's); else the 404. */
async function visibleRun(db: Db, id: string, accountId: string): Promise<RunRow> {
  const run = isId('run', id) ? await findRun(db, id) : undefined;
  // An account's public research is public with its run (its insight's /research shows it).
  if (!run || (run.account_id !== null && run.account_id !== accountId && run.visibility !== 'public')) {
    throw new ProblemError(problem('notFound', `No research run has the id "${id.slice(0, 64)}".`));
  }
  return run;
}

/** The 429 of a spent research allowance, with Retry-After to its reset (submissions and comparisons alike). */
export function allowanceProblem(error: ResearchAllowanceSpentError): ProblemError {
  const seconds = Math.max(1, Math.ceil((error.state.resetsAt.getTime() - Date.now()) / 1000));
  return new ProblemError(problem('researchAllowanceExceeded', error.message), { 'retry-after': String(seconds) });
}

/** The 422 of a submission the configured data cannot answer, naming (in invalid_params) the phrases and markets it can. */
export function notAnswerableProblem(error: NotAnswerableError): ProblemError {
  const params = [
    ...(error.missed.phrase ? [{ name: 'idea', reason: 'names none of the recorded phrases', allowed: [...error.coverage.phrases] }] : []),
    ...(error.missed.market ? [{ name: 'geo', reason: 'is not a recorded market', allowed: [...error.coverage.markets] }] : []),
  ];
  return new ProblemError(problem('notAnswerable', error.message, { invalid_params: params }));
}

function researchProblem(error: unknown): never {
  if (error instanceof InvalidIdeaError) throw invalidParam('idea', `cannot be researched: ${error.message}`);
  if (error instanceof NotAnswerableError) throw notAnswerableProblem(error);
  if (error instanceof ResearchAllowanceSpentError) throw allowanceProblem(error);
  if (error instanceof IdempotencyKeyReusedError) throw new ProblemError(problem('idempotencyKeyReused', error.message));
  if (error instanceof RunNotCancellableError) throw new ProblemError(problem('runNotCancellable', error.message));
  throw error;
}

/** How often the event stream looks at the run, and how long one stream lasts before the client reconnects. */
const EVENTS_POLL_MS = 1_000;
/** Event streams one account may hold open on one web process, and all accounts together (each looks at Postgres once a second). */
export const STREAMS_PER_ACCOUNT = 5;
export const STREAMS_PER_PROCESS = 500;
const EVENTS_MAX_MS = 15 * 60_000;
const EVENTS_HEARTBEAT_MS = 15_000;

/**
 * Server-sent events of a run's progress: `progress` on every change of its
 * state or step, then one of `completed`, `failed` or `cancelled`, and the
 * stream ends. A stream lasts at most EVENTS_MAX_MS (then `reconnect`); a
 * client reconnecting is sent the state as it is now.
 */
async function streamRun(request: FastifyRequest, reply: FastifyReply, db: Db, first: RunRow): Promise<void> {
  reply.hijack();
  const raw = reply.raw;
  raw.writeHead(200, {
    // What the hooks set already: the security headers, RateLimit.
    ...(reply.getHeaders() as Record<string, string>),
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    'x-accel-buffering': 'no',
    connection: 'keep-alive',
  });
  let eventId = 0;
  const send = (event: string, data: unknown) => {
    eventId += 1;
    raw.write(`id: ${eventId}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  };
  // The client may have gone already (while the run was read): then the socket is destroyed and no 'close' will come.
  let closed = request.raw.socket?.destroyed ?? false;
  request.raw.socket?.once('close', () => (closed = true));
  raw.once('close', () => (closed = true));
  const deadline = Date.now() + EVENTS_MAX_MS;
  let lastBeat = Date.now();
  let last = '';
  let run = first;
  try {
    for (;;) {
      const summary = summaryOf(run);
      const shown = JSON.stringify([summary.status, summary.progress.done, summary.waiting_reason]);
      if (shown !== last) {
        last = shown;
        send('progress', summary);
      }
      if (run.status === 'succeeded' || run.status === 'failed' || run.status === 'cancelled') {
        send(run.status === 'succeeded' ? 'completed' : run.status, summary);
        break;
      }
      if (Date.now() >= deadline) {
        send('reconnect', { detail: 'This stream has lasted its 15 minutes: connect again to follow the run.' });
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, EVENTS_POLL_MS));
      if (closed || raw.destroyed) return;
      if (Date.now() - lastBeat >= EVENTS_HEARTBEAT_MS) {
        raw.write(': still here\n\n');
        lastBeat = Date.now();
      }
      run = (await findRun(db, run.id)) ?? run;
    }
  } catch (error) {
    request.log.warn({ err: error, runId: first.id }, 'the research event stream stopped');
    if (!closed) send('error', { detail: 'The stream stopped on an error of ours; connect again.' });
  } finally {
    raw.end();
  }
}

export interface ResearchRoutesOptions {
  /** Research on demand; without it the routes that start or cancel runs answer 503. */
  research?: { service: ResearchService };
}

/**
 * The request's Idempotency-Key, hashed, and its fingerprint (the body): kept
 * with the run in Postgres, so a retry of a submission, however late within a
 * day and whichever process it reaches, gets the run the first one made.
 */
function idempotencyOf(request: FastifyRequest): { keyHash: string; fingerprint: string } | undefined {
  const header = request.headers['idempotency-key'];
  if (header === undefined) return undefined;
  if (typeof header !== 'string' || !KEY_SHAPE.test(header)) {
    throw invalidParam('Idempotency-Key', 'must be 1–255 visible ASCII characters (a UUID is a good choice)');
  }
  // The body's meaning, not its spelling: its fields in one order.
  const body = (request.body ?? {}) as Record<string, unknown>;
  const canonical = JSON.stringify(
    Object.fromEntries(
      Object.keys(body)
        .sort()
        .map((name) => [name, body[name]]),
    ),
  );
  return { keyHash: sha256(header), fingerprint: sha256(canonical) };
}

export const researchRoutes: FastifyPluginAsyncTypebox<ResearchRoutesOptions> = async (app, { research }) => {
  const service = (): ResearchService => {
    if (!research) throw new ProblemError(problem('unavailable', 'Research on demand is not configured on this web process.'));
    return research.service;
  };
  // Bodies as /api/webhooks reads them: JSON only (any other content type is a 415), each field of its own type ("true" is no boolean).
  app.removeContentTypeParser('text/plain');
  app.setValidatorCompiler<TSchema>(strictJsonValidator);
  const writeConfig = { requiredScope: 'research:write' as const, acceptsBody: true };
  // Event streams open on this process, by account and in all.
  const streams = new Map<string, number>();
  let openStreams = 0;

  app.post(
    '/research-runs',
    {
      config: writeConfig,
      bodyLimit: 4 * 1024,
      schema: {
        tags: ['research'],
        operationId: 'submitResearchRun',
        summary:
          'Research an idea for a market: 202 with the run, its place in the queue and when it should finish; 200 with the insight when the idea was researched for the market recently (unless refresh)',
        body: SubmitBody,
        headers: Type.Object({
          'idempotency-key': Type.Optional(
            Type.String({ maxLength: 255, description: 'Retry safely: the same key and body within 24 h make one run' }),
          ),
        }),
        response: { 200: ReusedSchema, 202: SubmittedSchema, ...errorResponses(400, 401, 403, 409, 413, 415, 422, 429) },
      },
    },
    async (request, reply) => {
      const key = request.apiKey!;
      const idempotency = idempotencyOf(request);
      const body = request.body;
      const submitted = await service()
        .submit(
          { accountId: key.accountId, plan: key.plan },
          {
            idea: body.idea,
            ...(body.geo !== undefined ? { geo: body.geo } : {}),
            ...(body.language !== undefined ? { language: body.language } : {}),
            ...(body.visibility !== undefined ? { visibility: body.visibility } : {}),
            ...(body.refresh !== undefined ? { refresh: body.refresh } : {}),
            ...(idempotency ? { idempotency } : {}),
          },
        )
        .catch(researchProblem);
      if (submitted.kind === 'reused') {
        const insight = submitted.insight;
        return reply.code(200).send({
          reused: true as const,
          detail: `"${insight.idea}" was researched for ${insight.geo || 'the world'} on ${insight.updated_at.toISOString().slice(0, 10)}: this is that insight, and no run was started (none of your allowance spent). Send "refresh": true to research it again.`,
          data: toInsightDto(insight),
        });
      }
      const { run, replayed } = submitted;
      // The answer to an earlier request with this key (a submission that joined a run under way is no replay).
      if (replayed) reply.header('idempotent-replayed', 'true');
      reply.code(202).header('location', `/api/research-runs/${run.id}`);
      return { data: summaryOf(run), queue: scheduleDto(await service().schedule(run)) };
    },
  );

  app.get(
    '/research-runs',
    {
      schema: {
        tags: ['research'],
        operationId: 'listResearchRuns',
        summary: "Your account's research runs, newest first; filter by state",
        querystring: RunListQuery,
        response: { 200: RunListSchema, ...errorResponses(400, 401, 403, 429) },
      },
    },
    async (request) => {
      const q = request.query;
      const page = await service().list(request.apiKey!.accountId, {
        limit: q.limit,
        ...(q.state !== undefined ? { states: statesOf(q.state) } : {}),
        ...(q.cursor !== undefined ? { after: decodeRunCursor(q.cursor) } : {}),
      });
      const last = page.rows.at(-1);
      return { data: page.rows.map(summaryOf), next_cursor: page.hasMore && last ? encodeRunCursor(last) : null };
    },
  );

  app.delete(
    '/research-runs/:id',
    {
      config: { requiredScope: 'research:write' as const },
      schema: {
        tags: ['research'],
        operationId: 'cancelResearchRun',
        summary: 'Cancel a queued, running or waiting run: no further step runs and its Google requests not yet sent are not sent',
        params: IdParams,
        response: { 200: Type.Object({ data: RunSummarySchema }), ...errorResponses(400, 401, 403, 404, 409, 429) },
      },
    },
    async (request) => {
      const id = request.params.id;
      const run = isId('run', id) ? await service().cancel(request.apiKey!.accountId, id).catch(researchProblem) : undefined;
      if (!run) throw new ProblemError(problem('notFound', `No research run of your account has the id "${id.slice(0, 64)}".`));
      return { data: summaryOf(run) };
    },
  );

  app.get(
    '/research-runs/:id/events',
    {
      // A HEAD would open a stream with nowhere to write it.
      exposeHeadRoute: false,
      schema: {
        tags: ['research'],
        operationId: 'streamResearchRun',
        summary: 'Server-sent events of the run: progress on every change, then completed, failed or cancelled',
        params: IdParams,
        querystring: NoQuery,
        response: {
          200: { description: 'text/event-stream', content: { 'text/event-stream': { schema: { type: 'string' } } } },
          ...errorResponses(400, 401, 403, 404, 429),
        },
      },
    },
    async (request, reply) => {
      const accountId = request.apiKey!.accountId;
      const run = await visibleRun(request.db, request.params.id, accountId);
      const mine = streams.get(accountId) ?? 0;
      if (mine >= STREAMS_PER_ACCOUNT || openStreams >= STREAMS_PER_PROCESS) {
        throw new ProblemError(
          problem(
            'tooManyStreams',
            mine >= STREAMS_PER_ACCOUNT
              ? `Your account has ${mine} event streams open here, the most it may: close one, or poll GET /api/research-runs/{id}.`
              : 'This web process holds as many event streams as it may: poll GET /api/research-runs/{id}, or try again shortly.',
          ),
          { 'retry-after': '10' },
        );
      }
      streams.set(accountId, mine + 1);
      openStreams += 1;
      try {
        await streamRun(request, reply, request.db, run);
      } finally {
        openStreams -= 1;
        const left = (streams.get(accountId) ?? 1) - 1;
        if (left > 0) streams.set(accountId, left);
        else streams.delete(accountId);
      }
    },
  );

  app.get(
    '/research-runs/:id',
    {
      // Not cached: a run moves on (a step, a wait, a cancel) without the read model changing.
      schema: {
        tags: ['research'],
        operationId: 'getResearchRun',
        summary: 'A research run: its 40 steps (status, timings, output summary) and the evidence behind each dimension',
        params: IdParams,
        querystring: NoQuery,
        response: { 200: ResearchReportSchema, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => {
      const run = await visibleRun(request.db, request.params.id, request.apiKey!.accountId);
      return report(request.db, run, request.apiKey!);
    },
  );

  app.get(
    '/insights/:id/research',
    {
      // Not cached: a run moves on (a step, a wait, a cancel) without the read model changing.
      schema: {
        tags: ['research'],
        operationId: 'getInsightResearch',
        summary: 'The latest research run behind an insight',
        params: IdParams,
        querystring: NoQuery,
        response: { 200: ResearchReportSchema, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => {
      const insight = await requireInsight(request.db, request.params.id, request.apiKey!);
      const run = await latestRunForInsight(request.db, insight.id);
      if (!run) {
        throw new ProblemError(
          problem(
            'notFound',
            `Insight ${insight.id} has no research run (source "${insight.source}": ${insight.source === 'recorded-series' ? 'a recorded series is loaded, not researched' : 'its run was removed'}).`,
          ),
        );
      }
      return report(request.db, run, request.apiKey!);
    },
  );
};
