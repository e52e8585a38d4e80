import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Db } from '../../../db/connection.js';
import { isId } from '../../../domain/ids.js';
import { publicFailure, publicRunError, publicWaitingReason } from '../../../domain/public-error.js';
import { findInsight } from '../../../insights/insight.repository.js';
import { findRun, latestRunForInsight, stepsOf, type RunRow } from '../../../research/run.repository.js';
import { STEP_NAMES } from '../../../research/step-contract.js';
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
      created_at: Type.String({ format: 'date-time' }),
      finished_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
      discovery: Type.Union([DiscoverySchema, Type.Null()], { description: 'Set for runs discovery started from the trending feed' }),
      steps: Type.Array(
        Type.Object({
          step: Type.Integer(),
          name: Type.String(),
          status: Type.String({ description: 'done, failed (last attempt failed), running, waiting, or pending' }),
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

async function report(db: Db, run: RunRow) {
  const steps = new Map((await stepsOf(db, run.id)).map((s) => [s.step, s]));
  const insight = run.insight_id ? await findInsight(db, run.insight_id) : undefined;
  return {
    data: {
      id: run.id,
      idea: run.idea,
      status: run.status,
      provider: run.provider,
      insight_id: run.insight_id,
      waiting_reason: publicWaitingReason(run.waiting_reason),
      error: publicRunError(
        run.error,
        run.failed_step === null ? null : { number: run.failed_step, name: STEP_NAMES[run.failed_step - 1] ?? 'unknown' },
      ),
      failed_step: run.failed_step,
      created_at: run.created_at.toISOString(),
      finished_at: run.finished_at?.toISOString() ?? null,
      discovery: run.discovery ?? null,
      steps: STEP_NAMES.map((name, i) => {
        const s = steps.get(i + 1);
        const current = i + 1 === run.next_step && (run.status === 'running' || run.status === 'waiting');
        return {
          step: i + 1,
          name,
          status: s?.status ?? (current ? run.status : 'pending'),
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

export const researchRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/research-runs/:id',
    {
      config: { cacheable: true },
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
      const run = isId('run', request.params.id) ? await findRun(request.db, request.params.id) : undefined;
      if (!run) throw new ProblemError(problem('notFound', `No research run has the id "${request.params.id.slice(0, 64)}".`));
      return report(request.db, run);
    },
  );

  app.get(
    '/insights/:id/research',
    {
      config: { cacheable: true },
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
      const insight = await requireInsight(request.db, request.params.id);
      const run = await latestRunForInsight(request.db, insight.id);
      if (!run) {
        throw new ProblemError(
          problem(
            'notFound',
            `Insight ${insight.id} has no research run (source "${insight.source}": ${insight.source === 'demo' ? 'demo data is loaded, not researched' : 'its run was removed'}).`,
          ),
        );
      }
      return report(request.db, run);
    },
  );
};
