// Runs one research step of a run, in a worker: takes the run up, hands the
// step its context (step-context.ts), records its output and "done" in one
// transaction (group-committed with other runs' steps where it can be), then
// enqueues the next step after the commit. What it answers, the research-step
// job (jobs/research-step.job.ts) turns into BullMQ's terms. Postgres, not the
// job, decides whether a step runs: a duplicate delivery, a crash between
// commit and enqueue, a run that moved on are each answered from the run.
import { createHash } from 'node:crypto';
import type { TrendsPlanName } from '../config.js';
import type { Db } from '../db/connection.js';
import { findInsightForIdea } from '../insights/insight.repository.js';
import type { Logger } from '../logger.js';
import { context, type Context, type Span } from '@opentelemetry/api';
import { contextFrom, inSpan, SpanKind, traceIdOf, tracingEnabled, withContext } from '../observability/tracing.js';
import { isOutage } from '../outage.js';
import { jobIdOf } from '../queue/enqueue.js';
import { JOB } from '../queue/job-catalogue.js';
import type { Redis } from '../redis/connection.js';
import type { RedisKeys } from '../redis/keys.js';
import { bumpReadModelVersion } from '../redis/read-model-version.js';
import { runOwner, type StepQueue } from './step-queue.js';
import {
  claimRun,
  doneOutputs,
  findRun,
  recordStepAttemptFailed,
  recordStepDone,
  setRunInsight,
  setRunState,
  type RunRow,
} from './run.repository.js';
import type { StepChain, StepChains, StepName, StepOutput } from './step-contract.js';
import { buildStepContext } from './step-context.js';
import { StepRecorder } from './step-recorder.js';
import { failRun, succeedRun } from './run-outcome.js';
import { trendsScopeOf } from './trends-scope.js';
import { failureTag } from '../domain/public-error.js';
import { RESEARCH_CHAINS } from './steps.js';
import { TrendsFailedError, WaitingForTrendsError, type TrendsGateway } from '../providers/gateway.js';
import { researchPriority, researchTurnPriority, sleepFor } from './queued-gateway.js';

export interface ResearchStepDeps {
  db: Db;
  redis: Redis;
  redisKeys: RedisKeys;
  stepQueue: StepQueue;
  /** The gateway for a run's provider (google goes through the rate-limited queue). */
  trendsFor(provider: string): TrendsGateway;
  logger: Logger;
  /** The anchor term for a run's provider (replay can only compare with what was recorded). */
  anchorFor(provider: string): string;
  geo: string;
  /** How runs ask Google Trends (TRENDS_REQUEST_PLAN): batched by default, single for the baseline. */
  requestPlan?: TrendsPlanName;
  /** How long a step waiting for Google Trends sleeps before looking again. */
  waitRetryMs?: number;
  /** Tells webhook matching about a committed outbox event at once (the relay is the safety net). */
  announce?: (eventId: string) => Promise<void>;
  /**
   * How long a delivery goes on running its run's next steps itself before it hands the next one to
   * its own job (0: each step its own job). RESEARCH_GO_ON_MS; see StepRunner.run.
   */
  goOnForMs?: number;
  /** The chains of steps this code runs (default RESEARCH_CHAINS); a test swaps in a changed one to play a deploy mid-run. */
  chains?: StepChains;
}

/**
 * A recorded output as later steps see it (parsed back from its JSON, so
 * exactly what a worker that reads it from Postgres would see) and its JSON,
 * serialised once and reused for the input hash and the write.
 */
interface RecordedOutput {
  value: unknown;
  json: string;
}

/** What a step needs of its run; none of it changes once the run exists. */
type RunFacts = Pick<
  RunRow,
  | 'id'
  | 'idea'
  | 'keyword_hints'
  | 'source'
  | 'provider'
  | 'geo'
  | 'language'
  | 'account_id'
  | 'visibility'
  | 'discovery'
  | 'chain'
  | 'trace_id'
>;

/**
 * A run's facts and recorded outputs never change, so each worker process
 * keeps the ones it has seen: the next step of a run it has been running then needs
 * no read at all, instead of re-reading the run and re-parsing every earlier
 * output. Whether the run is still at step N is checked by the write itself
 * (recordStepsDone), which is where it has to be checked anyway. Bounded: the
 * oldest runs are dropped first.
 */
class RunCache {
  private readonly runs = new Map<string, { facts: RunFacts; outputs: Map<string, RecordedOutput> }>();
  constructor(private readonly maxRuns = 2_000) {}

  get(runId: string) {
    return this.runs.get(runId);
  }

  /** The outputs of the steps `earlier` (those before this one in the run's own chain), by name. */
  async load(db: Db, run: RunFacts, earlier: readonly string[]): Promise<Map<string, RecordedOutput>> {
    let entry = this.runs.get(run.id);
    if (!entry) {
      if (this.runs.size >= this.maxRuns) this.runs.delete(this.runs.keys().next().value!);
      this.runs.set(run.id, (entry = { facts: run, outputs: new Map() }));
    }
    const { outputs } = entry;
    const missing = earlier.filter((name) => !outputs.has(name));
    if (missing.length > 0)
      for (const [name, value] of await doneOutputs(db, run.id, missing)) outputs.set(name, { value, json: JSON.stringify(value) });
    return outputs;
  }

  remember(runId: string, name: string, output: RecordedOutput): void {
    this.runs.get(runId)?.outputs.set(name, output);
  }

  forget(runId: string): void {
    this.runs.delete(runId);
  }
}

/** The job's side of a step: which, and its attempts. */
export interface StepJob {
  runId: string;
  /** The step's position in the run's own chain (research_runs.chain), not in today's. */
  step: number;
  /** This attempt's number (1: the first), and how many the job may make. */
  attempt: number;
  maxAttempts: number;
  /** The run's fair turn (StepQueue), carried from step to step; absent in jobs of older code. */
  turn?: number;
}

export type StepOutcome =
  /** `steps`: how many steps this delivery recorded (more than one when it went on with the next ones, see run). */
  | { kind: 'done'; result: { step: number; name: string; steps?: number } | { skipped: string } }
  /** Waiting on Google: sleep this long, spending no attempt. */
  | { kind: 'wait'; ms: number }
  /** Failed: retried with backoff, or (`final`) the run has failed. */
  | { kind: 'failed'; error: unknown; final: boolean };

/**
 * Between runOne and run: the step is recorded and the next one is due (`next`), or a step gone
 * on with could not end now and goes to its own job (`handoff`).
 */
type Continue = { kind: 'next'; result: { step: number; name: string }; runContext: Context | undefined } | { kind: 'handoff' };

/** An error the step threw that retrying cannot mend (the job's UnrecoverableError is one; see isFinal). */
export type FinalErrorTest = (error: unknown) => boolean;

export class StepRunner {
  private readonly cache = new RunCache();
  private readonly recorder: StepRecorder;
  private readonly chains: StepChains;

  constructor(
    private readonly deps: ResearchStepDeps,
    /** Whether an error is final whatever the attempts left (BullMQ's UnrecoverableError, which this folder does not import). */
    private readonly isFinal: FinalErrorTest = () => false,
  ) {
    this.recorder = new StepRecorder(deps.db);
    this.chains = deps.chains ?? RESEARCH_CHAINS;
  }

  /** The chain the run started on; a run whose chain this code no longer carries fails rather than run steps not its own. */
  private async chainOf(run: Pick<RunRow, 'id' | 'chain'>, step: number): Promise<StepChain> {
    const chain = this.chains.find(run.chain);
    if (chain) return chain;
    const message = `run ${run.id} started on the chain of steps ${run.chain}, which this version no longer runs; submit the idea again`;
    const eventId = await failRun(this.deps.db, run.id, step, message);
    await this.deps.stepQueue.finished(run.id);
    if (eventId) await this.deps.announce?.(eventId);
    throw new RunGoneError(message);
  }

  /**
   * A run whose steps are all recorded succeeds only after the API has been told
   * (the read-model version bump): a client that sees it succeeded and then
   * lists insights gets the new one, never a page cached from before. If the
   * bump fails or the worker dies first, the run stays running past its last
   * step until a retry of that step or the sweeper gets here again.
   */
  private async publish(runId: string, chain: StepChain): Promise<void> {
    await bumpReadModelVersion(this.deps.redis, this.deps.redisKeys, this.deps.db);
    const eventId = await succeedRun(this.deps.db, runId, chain.steps.length);
    await this.deps.stepQueue.finished(runId);
    if (eventId) await this.deps.announce?.(eventId);
  }

  /** Reads the run and decides whether this delivery should run the step at all. */
  private async checkRun(runId: string, step: number): Promise<RunRow | { skipped: string }> {
    const run = await findRun(this.deps.db, runId);
    if (!run) throw new RunGoneError(`research run ${runId} does not exist`);
    if (run.status === 'succeeded' || run.status === 'failed' || run.status === 'cancelled') return { skipped: `run is ${run.status}` };
    const chain = await this.chainOf(run, step);
    if (run.next_step > chain.steps.length) {
      // Every step recorded, but not yet published (a failed bump, or a crash just after the commit).
      await this.publish(run.id, chain);
      return { skipped: 'all steps recorded; published the run' };
    }
    if (run.next_step > step) {
      // A duplicate delivery, or a crash between commit and enqueue: make sure the chain goes on.
      await this.deps.stepQueue.enqueueStep(run.id, run.next_step, runOwner(run));
      return { skipped: 'step already recorded' };
    }
    if (run.next_step < step) throw new RunGoneError(`run ${runId} is at step ${run.next_step}, not ${step}`);
    return run;
  }

  /**
   * Runs the job's step and, while this delivery's time lasts (ResearchStepDeps.goOnForMs), the run's
   * next steps here too, each recorded as it ends exactly as if its own job had run it: the queue's
   * add, claim and completion round trips are saved, not the record. A step that goes on here and
   * cannot end now (waits on Google, fails) is handed to its own job, which runs it afresh: nothing
   * of it was recorded. A crash mid-way leaves the run at its last recorded step, which the job's
   * redelivery (stalled) or the sweeper finds and enqueues, as after a crash between commit and enqueue.
   */
  async run(job: StepJob): Promise<StepOutcome> {
    const until = Date.now() + (this.deps.goOnForMs ?? 0);
    let outcome = await this.runOne(job, false);
    let current = job;
    let steps = 1;
    while (outcome.kind === 'next') {
      const next: StepJob = { ...current, step: current.step + 1, attempt: 1 };
      const { result } = outcome;
      if (Date.now() >= until) {
        await this.handOff(next, outcome.runContext);
        return { kind: 'done', result: { ...result, steps } };
      }
      const continued = await this.runOne(next, true);
      if (continued.kind === 'handoff') {
        await this.handOff(next, outcome.runContext);
        return { kind: 'done', result: { ...result, steps } };
      }
      if (continued.kind !== 'next') {
        // A continued step that ended its run (the last step) or found it moved on: this delivery is done.
        return continued.kind === 'done' && 'step' in continued.result
          ? { kind: 'done', result: { ...continued.result, steps: steps + 1 } }
          : { kind: 'done', result: { ...result, steps } };
      }
      outcome = continued;
      current = next;
      steps += 1;
    }
    // Only a step gone on with hands off (runStep's `continued`); the job's own step answers for itself.
    if (outcome.kind === 'handoff') throw new Error(`step ${job.step} of run ${job.runId} handed itself off`);
    return outcome;
  }

  /** The next step's own job: the normal chain, from the run's context (the steps are siblings under the submission). */
  private async handOff(next: StepJob, runContext: Context | undefined): Promise<void> {
    await withContext(runContext ?? context.active(), () => this.deps.stepQueue.enqueueNext(next.runId, next.step, next.turn));
  }

  private async runOne(job: StepJob, continued: boolean): Promise<StepOutcome | Continue> {
    const { deps } = this;
    const { runId, step } = job;
    let run: RunFacts | undefined = this.cache.get(runId)?.facts;
    if (!run) {
      // First step of this run in this process (step normalize_idea, a retry, another worker's run):
      // take the run up if it is at this step, else find out why not.
      run = await claimRun(deps.db, runId, step);
      if (!run) {
        const checked = await this.checkRun(runId, step);
        if ('skipped' in checked) return { kind: 'done', result: checked };
        throw new Error(`run ${runId} was at step ${step} but could not be taken up; will retry`);
      }
    }
    const facts = run;
    // A traced run's step is a child of its submission's span (research_runs.trace_id), however its job was made.
    if (!tracingEnabled() || !facts.trace_id) return this.runStep(facts, job, continued);
    const runContext = contextFrom(facts.trace_id);
    return inSpan(
      'research.step',
      {
        kind: SpanKind.CONSUMER,
        parent: runContext,
        attributes: { 'research.run_id': runId, 'research.step.position': step, 'research.step.attempt': job.attempt },
      },
      async (span) => {
        const outcome = await this.runStep(facts, job, continued, runContext, span);
        span?.setAttribute(
          'research.step.outcome',
          outcome.kind === 'failed' && outcome.final ? 'failed_run' : outcome.kind === 'next' ? 'done' : outcome.kind,
        );
        return outcome;
      },
    );
  }

  private async runStep(
    facts: RunFacts,
    job: StepJob,
    continued: boolean,
    runContext?: Context,
    span?: Span,
  ): Promise<StepOutcome | Continue> {
    const { deps } = this;
    const { runId, step } = job;
    // The run's own chain, whatever chain is current: a deploy mid-run changes what new runs do, never this one.
    const chain = await this.chainOf(facts, step);
    const definition = chain.steps[step - 1];
    if (!definition) throw new RunGoneError(`run ${runId} has no step at position ${step} of its chain of ${chain.steps.length}`);
    span?.updateName(`research.step ${definition.name}`);
    span?.setAttribute('research.step.name', definition.name);
    const outputs = await this.cache.load(
      deps.db,
      facts,
      chain.steps.slice(0, step - 1).map((s) => s.name),
    );
    // Runs from before markets existed (geo null) ask about TRENDS_GEO, as they did.
    const geo = facts.geo ?? deps.geo;
    const ownerAccountId = facts.visibility === 'private' ? facts.account_id : null;
    const publisherAccountId = facts.visibility === 'private' ? null : facts.account_id;
    const { ctx, read } = buildStepContext({
      run: {
        id: facts.id,
        idea: facts.idea,
        hints: facts.keyword_hints,
        source: facts.source,
        ownerAccountId,
        publisherAccountId,
        provider: facts.provider,
        ...(facts.discovery ? { trending: facts.discovery.query } : {}),
      },
      output: (name) => outputs.get(name)?.value,
      missing: (name) => `step ${definition.name} needs the output of step ${name}, which is not recorded`,
      // The step never holds its slot waiting for Google: it sleeps, and the answer wakes it.
      fetch: (request) =>
        // A trends job made here links to this span: the job is shared by every run asking the same that day.
        traceTrendsRequest(facts.provider, request.kind, () =>
          deps.trendsFor(facts.provider).fetch(request, {
            // A private run's answers are its account's alone, but for requests of public terms (trends-scope.ts).
            scope: trendsScopeOf(request, ownerAccountId, new Set([deps.anchorFor(facts.provider).toLowerCase()])),
            // The run's turn: Google answers the accounts' runs in turn (StepQueue), each run's requests together.
            priority: job.turn === undefined ? researchPriority(step, chain.steps.length) : researchTurnPriority(job.turn),
            waiter: { queue: JOB.researchStep.queue, jobId: jobIdOf(JOB.researchStep, { runId, step })! },
          }),
        ),
      requestPlan: deps.requestPlan ?? 'batched',
      geo,
      // Search volume is asked in the run's language (two letters: "en-GB" asks "en").
      language: (facts.language ?? 'en').slice(0, 2).toLowerCase(),
      anchor: deps.anchorFor(facts.provider),
      findExistingInsight: (ideaKey, keyword) => findInsightForIdea(deps.db, ideaKey, keyword, { geo, ownerAccountId, publisherAccountId }),
    });

    const startedAt = new Date();
    let output: StepOutput;
    try {
      output = await definition.run(ctx);
    } catch (error) {
      // Postgres or Redis away is not the step's failure: retried without an attempt (see retryOutages).
      if (isOutage(error)) throw error;
      // A step gone on with (see run) that cannot end now: its own job runs it, with its attempts and its wake-up.
      if (continued) return { kind: 'handoff' };
      if (error instanceof WaitingForTrendsError) {
        // Waiting on Google is not a failure: sleep without spending an attempt, as long as the trends job said it waits.
        await setRunState(deps.db, facts.id, {
          status: 'waiting',
          waitingReason: `waiting for ${error.source} (${error.message})${error.operatorDetail ? ` — ${error.operatorDetail}` : ''}`,
        });
        return { kind: 'wait', ms: sleepFor(error, deps.waitRetryMs ?? 5_000) };
      }
      const detail = error instanceof Error ? error.message : String(error);
      // Stored with its kind in front (public-error.ts): its error's class's, as the provider's gateway read it (failureOf),
      // or else read now from our wording with the idea's words taken out.
      const tag = failureTag(detail, facts.idea, error instanceof TrendsFailedError ? error.known : {});
      const message = `${tag}${detail}`;
      const final = this.isFinal(error) || error instanceof TrendsFailedError || job.attempt >= job.maxAttempts;
      await recordStepAttemptFailed(deps.db, { runId, step, name: definition.name, error: message, attempt: job.attempt, startedAt });
      if (final) {
        // A person reads it: the step's position in the run's own chain, then its name.
        const eventId = await failRun(deps.db, runId, step, `${tag}step ${step} (${definition.name}) failed: ${detail}`);
        await deps.stepQueue.finished(runId);
        if (eventId) await deps.announce?.(eventId);
        deps.logger.warn({ queue: 'research', runId, step, ...traceFields(facts.trace_id), err: error }, 'research run failed');
      }
      return { kind: 'failed', error, final };
    }

    // What the step declares the worker measures of its output (forecast: its MASE).
    (definition.observe as ((output: StepOutput) => void) | undefined)?.(output);
    // The step's inputs: the idea and the earlier outputs it actually read, by name.
    const hash = createHash('sha1').update(JSON.stringify([facts.idea, facts.keyword_hints]));
    for (const name of [...read].sort() as StepName[]) hash.update(`\n${name}:`).update(outputs.get(name)!.json);
    const isLast = step === chain.steps.length;
    const outputJson = JSON.stringify(output ?? null);
    const record = {
      runId,
      step,
      name: definition.name,
      output,
      outputJson,
      summary: definition.summarize(output),
      inputHash: hash.digest('hex'),
      durationMs: Date.now() - startedAt.getTime(),
      startedAt,
      attempt: job.attempt,
    };
    let eventId: string | undefined;
    // Three ways to record: with the step's own writes (aggregate's insight) in one transaction; the
    // last step alone; any other step group-committed with the steps of other runs finishing now.
    const committed = definition.commit
      ? await deps.db.transaction().execute(async (trx) => {
          const recorded = await recordStepDone(trx, record);
          if (recorded) {
            const result = await definition.commit!(trx, ctx, output);
            await setRunInsight(trx, runId, result.insightId);
            eventId = result.eventId;
          }
          return recorded;
        })
      : isLast
        ? await deps.db.transaction().execute((trx) => recordStepDone(trx, record))
        : await this.recorder.record(record);
    if (!committed) {
      // Recorded by another delivery, or the run moved on (failed, retried elsewhere):
      // the run decides, as for a delivery that found it so before running the step.
      this.cache.forget(runId);
      const checked = await this.checkRun(runId, step);
      if ('skipped' in checked) return { kind: 'done', result: checked };
      throw new Error(`step ${definition.name} of run ${runId} was not recorded although the run is at it; will retry`);
    }
    // One line per step, at debug (the object is not even made at info): inside the step's span, so a traced
    // logger adds its trace_id and span_id, and a run's steps are found in the logs by its trace id.
    if (deps.logger.isLevelEnabled('debug'))
      deps.logger.debug(
        { queue: 'research', runId, step, name: definition.name, durationMs: record.durationMs, ...traceFields(facts.trace_id) },
        'research step done',
      );
    if (isLast) {
      this.cache.forget(runId);
      await this.publish(runId, chain);
      if (eventId) await deps.announce?.(eventId);
      return { kind: 'done', result: { step, name: definition.name } };
    }
    this.cache.remember(runId, definition.name, { value: JSON.parse(outputJson), json: outputJson });
    // The next step is due: run goes on with it here or hands it to its own job.
    return { kind: 'next', result: { step, name: definition.name }, runContext };
  }
}

/** The trace id a run's log lines carry (none for a run submitted with tracing off), also where the logger is not traced. */
function traceFields(traceparent: string | null): { trace_id?: string } {
  const traceId = traceIdOf(traceparent);
  return traceId ? { trace_id: traceId } : {};
}

/** One request of a step to its provider, as a span saying how it went (answered, waiting for Google, failed). */
function traceTrendsRequest<T>(provider: string, kind: string, fetch: () => Promise<T>): Promise<T> {
  if (!tracingEnabled()) return fetch();
  const attributes = { 'trends.provider': provider, 'trends.request.kind': kind };
  return inSpan('trends.request', { attributes, expected: (error) => error instanceof WaitingForTrendsError }, async (span) => {
    try {
      const answer = await fetch();
      span?.setAttribute('trends.request.outcome', 'answered');
      return answer;
    } catch (error) {
      span?.setAttribute('trends.request.outcome', error instanceof WaitingForTrendsError ? 'waiting' : 'failed');
      throw error;
    }
  });
}

/** The run is gone or elsewhere: this delivery of the step can never run (the job fails for good). */
export class RunGoneError extends Error {
  override name = 'RunGoneError';
}
