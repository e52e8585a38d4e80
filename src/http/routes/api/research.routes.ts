// /api/research-runs: an account's research on demand (submit, follow, cancel,
// a stream of its progress) through the same ResearchService the CLI uses; and
// the report of any run the asker may see (its own, or an operator's). What a
// run looks like is src/views/run.view.ts; its schemas, ../../schemas/research.ts.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type TSchema } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { isId } from '../../../domain/ids.js';
import type { ResearchService } from '../../../research/research-service.js';
import { latestRunForInsight } from '../../../research/run.repository.js';
import { toInsightDto, visibleInsight } from '../../../views/insight.view.js';
import { runDetail, runListView, runScheduleView, runSummary, visibleRun } from '../../../views/run.view.js';
import { KEY_SHAPE, sha256 } from '../../idempotency.js';
import { strictJsonValidator } from '../../json-body.js';
import { invalidParam, problem, ProblemError } from '../../problem.js';
import { errorResponses, IdParams, NoQuery } from '../../schemas/common.js';
import {
  ResearchReportSchema,
  ReusedSchema,
  RunListQuery,
  RunListSchema,
  RunSummarySchema,
  SubmitBody,
  SubmittedSchema,
} from '../../schemas/research.js';
import { runEventStreams } from './research-events.js';

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
  const streamRun = runEventStreams();

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
      // The service's refusals are Refusals (research-service.ts): errors.plugin answers each with its problem.
      const submitted = await service().submit(
        { accountId: key.accountId, plan: key.plan },
        {
          idea: body.idea,
          ...(body.geo !== undefined ? { geo: body.geo } : {}),
          ...(body.language !== undefined ? { language: body.language } : {}),
          ...(body.visibility !== undefined ? { visibility: body.visibility } : {}),
          ...(body.refresh !== undefined ? { refresh: body.refresh } : {}),
          ...(idempotency ? { idempotency } : {}),
        },
      );
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
      return { data: runSummary(run), queue: runScheduleView(await service().schedule(run)) };
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
      return runListView(service(), request.apiKey!, request.query);
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
      const run = isId('run', id) ? await service().cancel(request.apiKey!.accountId, id) : undefined;
      if (!run) throw new ProblemError(problem('notFound', `No research run of your account has the id "${id.slice(0, 64)}".`));
      return { data: runSummary(run) };
    },
  );

  app.get(
    '/research-runs/:id/events',
    {
      // A HEAD would open a stream with nowhere to write it.
      exposeHeadRoute: false,
      config: { readsPrimary: true },
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
      const run = await visibleRun(request.db, request.params.id, request.apiKey!);
      await streamRun(request, reply, request.db, run, accountId);
    },
  );

  app.get(
    '/research-runs/:id',
    {
      // Not cached, and read from the primary: a run moves on (a step, a wait, a cancel) without the read model changing.
      config: { readsPrimary: true },
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
      const run = await visibleRun(request.db, request.params.id, request.apiKey!);
      return runDetail(request.db, run, request.apiKey!);
    },
  );

  app.get(
    '/insights/:id/research',
    {
      // Not cached, and read from the primary: a run moves on (a step, a wait, a cancel) without the read model changing.
      config: { readsPrimary: true },
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
      const insight = await visibleInsight(request.db, request.params.id, request.apiKey!);
      const run = await latestRunForInsight(request.db, insight.id);
      if (!run) {
        throw new ProblemError(
          problem(
            'notFound',
            `Insight ${insight.id} has no research run (source "${insight.source}": ${insight.source === 'recorded-series' ? 'a recorded series is loaded, not researched' : 'its run was removed'}).`,
          ),
        );
      }
      return runDetail(request.db, run, request.apiKey!);
    },
  );
};
