// research / research-step: run one of the 40 steps of a run.
// Load the run and earlier outputs, run the step, then record its output and
// "done" in one transaction; enqueue the next step after commit.
import { createHash } from 'node:crypto';
import { UnrecoverableError, type Job } from 'bullmq';
import { sleepWithoutAttempt } from '../src/queue/wait.js';
import { forecastMase } from '../src/observability/metrics.js';
import type { Redis } from '../src/redis/connection.js';
import { bumpReadModelVersion } from '../src/redis/read-model-version.js';
import type { Db } from '../src/db/connection.js';
import type { Logger } from '../src/logger.js';
import { isOutage } from '../src/outage.js';
import type { ResearchStepPayload } from '../src/queue/job-catalogue.js';
import type { RedisKeys } from '../src/redis/keys.js';
import type { ResearchChain } from '../src/research/chain.js';
import { findInsightForIdea } from '../src/insights/insight.repository.js';
import {
  claimRun,
  doneOutputs,
  findRun,
  markRunFailed,
  markRunSucceeded,
  recordStepAttemptFailed,
  recordStepDone,
  setRunInsight,
  setRunState,
  type RunRow,
} from '../src/research/run.repository.js';
import { StepRecorder } from '../src/research/step-recorder.js';
import type { TrendsPlanName } from '../src/config.js';
import { trendsPlan } from '../src/research/trends-plan.js';
import { STEPS } from '../src/research/steps.js';
import { STEP_COUNT, STEP_NAMES, type StepContext, type StepName, type StepOutput } from '../src/research/step-contract.js';
import {
  researchPriority,
  sleepFor,
  TrendsFailedError,
  WaitingForTrendsError,
  type TrendsGateway,
} from '../src/research/trends-gateway.js';

export interface ResearchStepDeps {
  db: Db;
  redis: Redis;
  redisKeys: RedisKeys;
  chain: ResearchChain;
  /** The gateway for a run's provider (google goes through the rate-limited queue). */
  trendsFor(provider: string): TrendsGateway;
  logger: Logger;
  /** The anchor term for a run's provider (replay can only compare with what was recorded). */
  anchorFor(provider: string): string;
  geo: string;
  /** How runs ask Google Trends (TRENDS_REQUEST_PLAN): batched by default, single for the baseline. */
  plan?: TrendsPlanName;
  /** How long a step waiting for Google Trends sleeps before looking again. */
  waitRetryMs?: number;
  /** Tells webhook matching about a committed outbox event at once (the relay is the safety net). */
  announce?: (eventId: string) => Promise<void>;
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
type RunFacts = Pick<RunRow, 'id' | 'idea' | 'keyword_hints' | 'source' | 'provider'>;

/**
 * A run's facts and recorded outputs never change, so each worker process
 * keeps the ones it has seen: step N of a run it has been running then needs
 * no read at all, instead of re-reading the run and re-parsing every earlier
 * output. Whether the run is still at step N is checked by the write itself
 * (recordStepsDone), which is where it has to be checked anyway. Bounded: the
 * oldest runs are dropped first.
 */
class RunCache {
  private readonly runs = new Map<string, { facts: RunFacts; outputs: Map<number, RecordedOutput> }>();
  constructor(private readonly maxRuns = 2_000) {}

  get(runId: string) {
    return this.runs.get(runId);
  }

  async load(db: Db, run: RunFacts, upTo: number): Promise<Map<number, RecordedOutput>> {
    let entry = this.runs.get(run.id);
    if (!entry) {
      if (this.runs.size >= this.maxRuns) this.runs.delete(this.runs.keys().next().value!);
      this.runs.set(run.id, (entry = { facts: run, outputs: new Map() }));
    }
    const { outputs } = entry;
    const missing = Array.from({ length: upTo - 1 }, (_, i) => i + 1).filter((n) => !outputs.has(n));
    if (missing.length > 0)
      for (const [n, value] of await doneOutputs(db, run.id, missing)) outputs.set(n, { value, json: JSON.stringify(value) });
    return outputs;
  }

  remember(runId: string, step: number, output: RecordedOutput): void {
    this.runs.get(runId)?.outputs.set(step, output);
  }

  forget(runId: string): void {
    this.runs.delete(runId);
  }
}

export function researchStepProcessor(deps: ResearchStepDeps) {
  const cache = new RunCache();
  const recorder = new StepRecorder(deps.db);

  /**
   * A run whose 40 steps are recorded succeeds only after the API has been told
   * (the read-model version bump): a client that sees it succeeded and then
   * lists insights gets the new one, never a page cached from before. If the
   * bump fails or the worker dies first, the run stays running past its last
   * step until a retry of step 40 or the sweeper gets here again.
   */
  async function publish(runId: string): Promise<void> {
    await bumpReadModelVersion(deps.redis, deps.redisKeys, deps.db);
    await markRunSucceeded(deps.db, runId, STEP_COUNT);
  }

  /** Reads the run and decides whether this delivery should run the step at all. */
  async function checkRun(runId: string, step: number): Promise<RunRow | { skipped: string }> {
    const run = await findRun(deps.db, runId);
    if (!run) throw new UnrecoverableError(`research run ${runId} does not exist`);
    if (run.status === 'succeeded' || run.status === 'failed') return { skipped: `run is ${run.status}` };
    if (run.next_step > STEP_COUNT) {
      // Every step recorded, but not yet published (a failed bump, or a crash just after the commit).
      await publish(run.id);
      return { skipped: 'all steps recorded; published the run' };
    }
    if (run.next_step > step) {
      // A duplicate delivery, or a crash between commit and enqueue: make sure the chain goes on.
      if (run.next_step <= STEP_COUNT) await deps.chain.enqueueStep(run.id, run.next_step);
      return { skipped: 'step already recorded' };
    }
    if (run.next_step < step) throw new UnrecoverableError(`run ${runId} is at step ${run.next_step}, not ${step}`);
    return run;
  }

  // The payload was checked against ResearchStepPayload before this runs (runtime/job-dispatch.ts).
  return async (job: Job<ResearchStepPayload>, token?: string) => {
    const { runId, step } = job.data;
    let run: RunFacts | undefined = cache.get(runId)?.facts;
    if (!run) {
      // First step of this run in this process (step 1, a retry, another worker's run):
      // take the run up if it is at this step, else find out why not.
      run = await claimRun(deps.db, runId, step);
      if (!run) {
        const checked = await checkRun(runId, step);
        if ('skipped' in checked) return checked;
        throw new Error(`run ${runId} was at step ${step} but could not be taken up; will retry`);
      }
    }
    const definition = STEPS[step - 1]!;
    const outputs = await cache.load(deps.db, run, step);
    const read = new Set<number>();
    const ctx: StepContext = {
      run: { id: run.id, idea: run.idea, hints: run.keyword_hints, source: run.source },
      out: <T>(name: StepName) => {
        const index = STEP_NAMES.indexOf(name);
        read.add(index + 1);
        if (!outputs.has(index + 1))
          throw new Error(`step ${step} (${definition.name}) needs the output of step ${index + 1} (${name}), which is not recorded`);
        return outputs.get(index + 1)!.value as T;
      },
      plan: trendsPlan(
        deps.plan ?? 'batched',
        (request) => deps.trendsFor(run.provider).fetch(request, { priority: researchPriority(step, STEP_COUNT) }),
        deps.geo,
        {
          secondary: () =>
            (outputs.get(STEP_NAMES.indexOf('choose_primary') + 1)?.value as { secondary?: string[] } | undefined)?.secondary ?? [],
          anchor: deps.anchorFor(run.provider),
        },
      ),
      findExistingInsight: (ideaKey, keyword) => findInsightForIdea(deps.db, ideaKey, keyword),
      anchorTerm: deps.anchorFor(run.provider),
      geo: deps.geo,
    };

    const startedAt = new Date();
    const attempt = job.attemptsMade + 1;
    let output: StepOutput;
    try {
      output = await definition.run(ctx);
    } catch (error) {
      // Postgres or Redis away is not the step's failure: retried without an attempt (see retryOutages).
      if (isOutage(error)) throw error;
      if (error instanceof WaitingForTrendsError) {
        // Waiting on Google is not a failure: sleep without spending an attempt, as long as the trends job said it waits.
        await setRunState(deps.db, run.id, { status: 'waiting', waitingReason: `waiting for Google Trends (${error.message})` });
        throw await sleepWithoutAttempt(job, token, sleepFor(error, deps.waitRetryMs ?? 5_000));
      }
      const message = error instanceof Error ? error.message : String(error);
      const final = error instanceof UnrecoverableError || error instanceof TrendsFailedError || attempt >= (job.opts.attempts ?? 1);
      await recordStepAttemptFailed(deps.db, { runId, step, name: definition.name, error: message, attempt, startedAt });
      if (final) {
        await markRunFailed(deps.db, runId, step, `step ${step} (${definition.name}) failed: ${message}`);
        deps.logger.warn({ queue: 'research', jobId: job.id, runId, step, err: error }, 'research run failed');
        throw new UnrecoverableError(message);
      }
      throw error;
    }

    if (definition.name === 'forecast') {
      const mase = (output as { withheld?: boolean; backtest?: { mase: number | null } }).backtest?.mase;
      if (typeof mase === 'number') forecastMase.observe(mase);
    }
    // The step's inputs: the idea and the earlier outputs it actually read.
    const hash = createHash('sha1').update(JSON.stringify([run.idea, run.keyword_hints]));
    for (const n of [...read].sort((a, b) => a - b)) hash.update(`\n${n}:`).update(outputs.get(n)!.json);
    const inputHash = hash.digest('hex');
    const isLast = step === STEP_COUNT;
    const outputJson = JSON.stringify(output ?? null);
    const record = {
      runId,
      step,
      name: definition.name,
      output,
      outputJson,
      summary: definition.summarize(output),
      inputHash,
      durationMs: Date.now() - startedAt.getTime(),
      startedAt,
      attempt,
    };
    let eventId: string | undefined;
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
        : await recorder.record(record);
    if (!committed) {
      // Recorded by another delivery, or the run moved on (failed, retried elsewhere):
      // the run decides, as for a delivery that found it so before running the step.
      cache.forget(runId);
      const checked = await checkRun(runId, step);
      if ('skipped' in checked) return checked;
      throw new Error(`step ${step} of run ${runId} was not recorded although the run is at it; will retry`);
    }
    if (isLast) {
      cache.forget(runId);
      await publish(runId);
      if (eventId) await deps.announce?.(eventId);
    } else {
      cache.remember(runId, step, { value: JSON.parse(outputJson), json: outputJson });
      await deps.chain.enqueueNext(runId, step + 1);
    }
    return { step, name: definition.name };
  };
}
