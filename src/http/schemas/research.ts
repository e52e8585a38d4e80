// The /api/research-runs schemas (TypeBox): a run's summary and report, its place in the queue, a
// submission and its answers, and the list of an account's runs.
import { Type } from '@sinclair/typebox';
import { RESEARCH_VISIBILITIES, RUN_STATUSES } from '../../db/database.js';
import { CURSOR_MAX_LENGTH } from '../../domain/cursor.js';
import { TRENDING_ROADS } from '../../domain/trends/answers.js';
import { DISCOVERY_SOURCES } from '../../domain/trends/google/discovery.js';
import { MAX_IDEA_LENGTH } from '../../domain/research/idea.js';
import { STEP_COUNT } from '../../research/step-contract.js';
import { stringEnum } from './common.js';
import { DimensionSchema, InsightSchema } from './insights.js';

const DiscoverySchema = Type.Object(
  {
    source: stringEnum(Object.values(DISCOVERY_SOURCES), {
      description: "Which road to Google's trending searches served it: the RSS feed, the Trending Now RPC, or the /trending page",
    }),
    geo: Type.String(),
    query: Type.String({ description: 'The trending search as the feed listed it' }),
    approx_traffic: Type.String({ description: "Google's approximate traffic bucket, e.g. 10K+" }),
    published: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    news: Type.Array(Type.Object({ title: Type.String(), source: Type.String(), url: Type.String() })),
    passed_over: Type.Optional(
      Type.Array(Type.Object({ road: stringEnum(TRENDING_ROADS), why: Type.String() }), {
        description: 'The roads tried before the one that served, and why each did not (absent when the RSS feed served)',
      }),
    ),
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

const TraceIdSchema = Type.Union([Type.String({ pattern: '^[0-9a-f]{32}$' }), Type.Null()], {
  description:
    "The run's OpenTelemetry trace id (32 hex digits): search the operator's tracing backend for it to see every step, the trends requests it waited on and the webhook deliveries it caused. Null when the service was not exporting traces when the run was submitted",
});

const WhatToDoSchema = Type.Union([Type.String(), Type.Null()], {
  description: 'For a failed or waiting run: what to do about it, in a sentence; null otherwise',
});

export const ResearchReportSchema = Type.Object(
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
      trace_id: TraceIdSchema,
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

export const ScheduleSchema = Type.Object(
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

export const RunSummarySchema = Type.Object(
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
    trace_id: TraceIdSchema,
    links: Type.Object({ self: Type.String(), events: Type.String(), insight: Type.Union([Type.String(), Type.Null()]) }),
  },
  { $id: 'ResearchRunSummary' },
);

export const SubmitBody = Type.Object(
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

export const SubmittedSchema = Type.Object({ data: RunSummarySchema, queue: ScheduleSchema }, { $id: 'ResearchRunSubmitted' });
export const ReusedSchema = Type.Object(
  {
    reused: Type.Literal(true),
    detail: Type.String({ description: 'Why no run was started, and how to start one anyway' }),
    data: InsightSchema,
  },
  { $id: 'ResearchReused' },
);
export const RunListSchema = Type.Object({ data: Type.Array(RunSummarySchema), next_cursor: Type.Union([Type.String(), Type.Null()]) });
export const RunListQuery = Type.Object(
  {
    limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
    state: Type.Optional(Type.String({ maxLength: 100, description: `One state or a comma list of: ${RUN_STATUSES.join(', ')}` })),
    cursor: Type.Optional(Type.String({ maxLength: CURSOR_MAX_LENGTH })),
  },
  { additionalProperties: false },
);
