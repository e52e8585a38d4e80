// Every job of the pipeline, declared once: the queue it runs on, its name, the
// payload it accepts, its options and the rule that makes its id. Producers
// enqueue through enqueue()/jobRequest() (enqueue.ts), typed by the declaration;
// workers check payloads and find processors by the same declaration
// (src/runtime/job-table.ts). Nothing else writes a job's name, options or id.
import { createHash } from 'node:crypto';
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import type { JobsOptions } from 'bullmq';
import { requestKey, type TrendsRequest } from '../domain/trends/answers.js';
import { utcDay } from '../domain/utc-day.js';
import { JOBS, QUEUES, type JobName, type QueueName } from './queue-names.js';

/**
 * One job. `id` makes the job id from the payload and what else the rule needs
 * (`K`); without it BullMQ numbers each enqueue, a new job every time (the
 * scheduled jobs, whose schedulers name them). BullMQ refuses ids with ':' or
 * made only of digits: every rule here prefixes its ids.
 */
export interface JobDeclaration<P extends TSchema = TSchema, K extends unknown[] = never[]> {
  readonly queue: QueueName;
  readonly name: JobName;
  readonly payload: P;
  readonly options: JobsOptions | ((data: Static<P>) => JobsOptions);
  readonly id?: (data: Static<P>, ...key: K) => string;
  /** Why the job exists, for the dashboard and a newcomer. */
  readonly purpose: string;
}

const declare = <P extends TSchema, K extends unknown[] = never[]>(d: JobDeclaration<P, K>) => d;

/** Scheduled jobs and the refresh's flow parent carry nothing: what they do is read from the database. */
export const NoPayload = Type.Object({});

export const ResearchStepPayload = Type.Object({
  runId: Type.String({ pattern: '^run_' }),
  /** The step's position in the run's own chain of steps (research_runs.chain), which may be longer or shorter than today's. */
  step: Type.Integer({ minimum: 1 }),
  /** The run's fair turn (src/queue/fair-share.ts): its first step's priority, and its Google requests'. Absent in jobs of older code. */
  turn: Type.Optional(Type.Integer({ minimum: 1 })),
});
export type ResearchStepPayload = Static<typeof ResearchStepPayload>;

export const TrendsFetchPayload = Type.Object({
  request: Type.Unsafe<TrendsRequest>(Type.Record(Type.String(), Type.Unknown())),
  provider: Type.String(),
  /** Egress routes that refused this request (HTTP 400): it is not sent through them again. */
  refusedBy: Type.Optional(Type.Array(Type.String())),
  /** The account whose private research asked it (research/trends-scope.ts): part of the job id, so the answer is its alone. */
  scope: Type.Optional(Type.String()),
});
export type TrendsFetchPayload = Static<typeof TrendsFetchPayload>;

export const RefreshInsightPayload = Type.Object({ insightId: Type.String({ pattern: '^ins_' }) });
export const RefreshGroupPayload = Type.Object({
  insightIds: Type.Array(Type.String({ pattern: '^ins_' }), { minItems: 1, maxItems: 5 }),
  /** 1: the planned groups (leftovers go back to the parent); 2: leftovers regrouped (leftovers then go alone). */
  round: Type.Optional(Type.Union([Type.Literal(1), Type.Literal(2)])),
});

export const WebhookMatchPayload = Type.Object({ eventId: Type.String({ minLength: 1 }) });
export const WebhookDeliverPayload = Type.Object({
  deliveryId: Type.String({ minLength: 1 }),
  /** The delivery's replay count in Postgres when this job was made (0: its first sending). */
  replay: Type.Optional(Type.Integer({ minimum: 0 })),
});

/**
 * A replay waits behind fresh deliveries (new events, pings): BullMQ takes a
 * job without a priority before any with one, and fresh deliveries' fair turns
 * (src/queue/fair-share.ts) stay below this, so an account's backlog of
 * thousands of replays is not a queue every other account's new event stands
 * behind. BullMQ's largest priority.
 */
export const REPLAY_PRIORITY = 2 ** 21 - 1;

/**
 * Matching an event goes ahead of every delivery (a delivery's turn is at
 * least FIRST_DELIVERY_TURN) but behind jobs without a priority: a ping, or a
 * delivery revived by the sweeper, is not queued behind a burst of events.
 */
export const MATCH_PRIORITY = 1;
export const FIRST_DELIVERY_TURN = MATCH_PRIORITY + 1;

/** Kept three days when done, a week when failed; four tries, 10 s apart and doubling. */
const INGEST_OPTIONS: JobsOptions = {
  attempts: 4,
  backoff: { type: 'exponential', delay: 10_000 },
  removeOnComplete: { age: 3 * 24 * 3600 },
  removeOnFail: { age: 7 * 24 * 3600 },
};

/**
 * What Redis keeps of a scheduled job once it has run. Without it every run
 * stayed: the relay (every 5 s) and the sweep (every 15 s) alone left about
 * 23,000 jobs a day, some 28 MB a day, for good. Failed runs stay a week, for
 * `insights doctor` and the dashboard.
 */
const SCHEDULED_OPTIONS: JobsOptions = {
  removeOnComplete: { age: 24 * 3600, count: 100 },
  removeOnFail: { age: 7 * 24 * 3600, count: 1_000 },
};

/** What Redis keeps of a delivery's job once it is delivered (the capacity model counts it): a day, at most 10,000. */
export const COMPLETED_DELIVERIES_KEPT = { age: 24 * 3600, count: 10_000 } as const;

const shortHash = (text: string, length: number) => createHash('sha1').update(text).digest('hex').slice(0, length);

export const JOB = {
  researchStep: declare({
    queue: QUEUES.research,
    name: JOBS.researchStep,
    payload: ResearchStepPayload,
    purpose: 'one step of a research run (its place in the run’s own chain); the run moves on when it is recorded',
    // A run's next step LIFO, its first step at the run's fair turn (StepQueue.start): a run in
    // flight goes ahead of runs not yet started, so runs finish depth-first instead of every queued
    // run advancing a step at a time; and a run just submitted waits its account's turn.
    options: (d) => ({
      attempts: 4,
      backoff: { type: 'exponential', delay: 2_000 },
      removeOnComplete: true,
      removeOnFail: { age: 7 * 24 * 3600 },
      lifo: d.step > 1,
    }),
    // Postgres, not the id, guards against running a step twice (ids stop deduplicating once a job is removed).
    id: (d) => `${d.runId}-step-${d.step}`,
  }),
  trendsFetch: declare({
    queue: QUEUES.trends,
    name: JOBS.trendsFetch,
    payload: TrendsFetchPayload,
    purpose: 'one request to live Google, paced per egress route',
    // Kept a day: the same request from another step or run that day reuses the answer.
    options: {
      attempts: 5,
      backoff: { type: 'exponential', delay: 5_000 },
      removeOnComplete: { age: 24 * 3600 },
      removeOnFail: { age: 24 * 3600 },
    },
    // Unscoped ids are as they were before scopes (a deploy keeps the day's answers).
    id: (d, at: Date) =>
      `trends-${shortHash(`${d.provider}|${requestKey(d.request)}|${utcDay(at)}${d.scope ? `|account:${d.scope}` : ''}`, 32)}`,
  }),
  refreshAll: declare({
    queue: QUEUES.ingest,
    name: JOBS.refreshAll,
    payload: NoPayload,
    purpose: 'plans the daily refresh and enqueues it as a flow (groups, then their leftovers)',
    options: SCHEDULED_OPTIONS,
  }),
  refreshLeftovers: declare({
    queue: QUEUES.ingest,
    name: JOBS.refreshLeftovers,
    payload: NoPayload,
    purpose: "the parent of a refresh's groups: regroups what they could not serve",
    options: INGEST_OPTIONS,
    // One parent per trigger: the day and the refresh-all job that planned it.
    id: (_d, at: Date, trigger: string) => `refresh-${utcDay(at).replaceAll('-', '')}-${shortHash(trigger, 10)}`,
  }),
  refreshGroup: declare({
    queue: QUEUES.ingest,
    name: JOBS.refreshGroup,
    payload: RefreshGroupPayload,
    purpose: 'up to five insights of comparable popularity refreshed from one request',
    // A group that fails for good must not hold its parent's leftovers back.
    options: { ...INGEST_OPTIONS, ignoreDependencyOnFailure: true },
    id: (d, parent: string, index: number) => `${parent}-${d.round === 2 ? 'round2-' : 'g'}${index}`,
  }),
  refreshInsight: declare({
    queue: QUEUES.ingest,
    name: JOBS.refreshInsight,
    payload: RefreshInsightPayload,
    purpose: 'one insight refreshed from a request of its own (a leftover of two rounds of groups)',
    options: INGEST_OPTIONS,
    id: (d, parent: string) => `${parent}-alone-${d.insightId}`,
  }),
  discover: declare({
    queue: QUEUES.ingest,
    name: JOBS.discover,
    payload: NoPayload,
    purpose: "researches what Google's trending feed shows, up to the daily cap",
    options: SCHEDULED_OPTIONS,
  }),
  webhookMatch: declare({
    queue: QUEUES.webhooks,
    name: JOBS.webhookMatch,
    payload: WebhookMatchPayload,
    purpose: 'matches one outbox event against the subscriptions and records its deliveries',
    // Kept an hour so a second announce of the event is a no-op.
    options: {
      priority: MATCH_PRIORITY,
      attempts: 5,
      backoff: { type: 'exponential', delay: 1_000 },
      removeOnComplete: { age: 3600 },
      removeOnFail: { age: 7 * 24 * 3600 },
    },
    id: (d) => `match-${d.eventId}`,
  }),
  webhookDeliver: declare({
    queue: QUEUES.webhooks,
    name: JOBS.webhookDeliver,
    payload: WebhookDeliverPayload,
    purpose: 'sends one delivery, retrying on the webhook schedule',
    // Retries follow the webhook schedule (domain/webhooks/retry.ts) through the worker's custom
    // backoff. Failed jobs stay a week, at most 10,000 (the delivery and its attempts stay in
    // Postgres, and a replay makes a new job).
    options: (d) => ({
      attempts: 8,
      backoff: { type: 'custom' },
      removeOnComplete: COMPLETED_DELIVERIES_KEPT,
      removeOnFail: { age: 7 * 24 * 3600, count: 10_000 },
      ...((d.replay ?? 0) > 0 ? { priority: REPLAY_PRIORITY } : {}),
    }),
    // From the delivery and its replay count, never the clock: a replay asked twice while one is pending is one job.
    id: (d) => ((d.replay ?? 0) > 0 ? `deliver-${d.deliveryId}-replay-${d.replay}` : `deliver-${d.deliveryId}`),
  }),
  relay: declare({
    queue: QUEUES.maintenance,
    name: JOBS.relay,
    payload: NoPayload,
    purpose: 'gives outbox events nobody announced their match job',
    options: SCHEDULED_OPTIONS,
  }),
  sweep: declare({
    queue: QUEUES.maintenance,
    name: JOBS.sweep,
    payload: NoPayload,
    purpose: 'gives research steps and deliveries whose job was lost their job again',
    options: SCHEDULED_OPTIONS,
  }),
  prune: declare({
    queue: QUEUES.maintenance,
    name: JOBS.prune,
    payload: NoPayload,
    purpose: 'deletes webhook attempts and sends past their keeping',
    options: SCHEDULED_OPTIONS,
  }),
  googleCheck: declare({
    queue: QUEUES.maintenance,
    name: JOBS.googleCheck,
    payload: NoPayload,
    purpose: 'the live Google canary: is Google still answering as the client expects',
    options: SCHEDULED_OPTIONS,
  }),
} as const;

export type AnyJobDeclaration = (typeof JOB)[keyof typeof JOB];

/** The deliver job's payload for a delivery as Postgres holds it (its replay count). */
export const deliveryPayload = (delivery: { id: string; replays?: number }): Static<typeof WebhookDeliverPayload> =>
  (delivery.replays ?? 0) > 0 ? { deliveryId: delivery.id, replay: delivery.replays! } : { deliveryId: delivery.id };
