// The worker section: how much one worker process runs at once.
import { EnvReader } from './env-reader.js';

export interface WorkerConfig {
  /** Research steps one worker process runs at once. */
  readonly researchConcurrency: number;
  /**
   * How long a research step's delivery goes on with its run's next steps itself before handing the
   * next one to its own job (0: a job per step). Well under the sweeper's 30 s of quiet: the run moves at each step.
   */
  readonly researchGoOnMs: number;
  /** Webhook deliveries one worker process has in flight (I/O-bound: a slow receiver holds one for at most webhooks.timeoutMs). */
  readonly webhookConcurrency: number;
  /** How long a worker's job lock lasts; a crashed worker's jobs are retried after about this long. */
  readonly jobLockMs: number;
  /**
   * How long a process's graceful shutdown may take before it exits anyway. BullMQ's close waits for
   * active jobs without a limit; a job stuck on a dead connection would keep the process alive past
   * its supervisor's patience. Nothing is lost by exiting: an unfinished job's lock lapses and it is
   * delivered again, and every step is idempotent.
   */
  readonly shutdownTimeoutMs: number;
}

export function loadWorkerSection(read: EnvReader): WorkerConfig {
  return Object.freeze({
    researchConcurrency: read.integer('RESEARCH_CONCURRENCY', 20, 1, 500),
    researchGoOnMs: read.integer('RESEARCH_GO_ON_MS', 500, 0, 10_000),
    webhookConcurrency: read.integer('WEBHOOK_CONCURRENCY', 100, 1, 1_000),
    jobLockMs: read.integer('JOB_LOCK_MS', 30_000, 1_000, 600_000),
    shutdownTimeoutMs: read.integer('SHUTDOWN_TIMEOUT_MS', 25_000, 1_000, 600_000),
  });
}
