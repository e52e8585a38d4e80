// A worker's close that waits on its Redis connections, not on work, does not hold the shutdown to its
// deadline: in the cluster chaos soak of 2026-11-29 (seed 290456) the research worker's close() never
// finished after a master failover with none of its jobs running, and the process exited 1 at the deadline.
import { pino } from 'pino';
import type { Job } from 'bullmq';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { closeWorker, COMPLETION_WRITE_MS, jobEnded, trackRunning } from '../../src/runtime/workers.js';

const logger = pino({ level: 'silent' });
afterEach(() => vi.useRealTimers());

function fakeWorker(close: () => Promise<void>) {
  return { name: 'research', close: vi.fn(close), disconnect: vi.fn(async () => {}) };
}

describe('closeWorker', () => {
  it('returns when the close finishes, leaving the connections to it', async () => {
    const worker = fakeWorker(async () => {});
    await closeWorker(worker, logger, 1_000);
    expect(worker.disconnect).not.toHaveBeenCalled();
  });

  it('drops the connections and goes on once none of its jobs has run for the idle time', async () => {
    vi.useFakeTimers();
    const worker = fakeWorker(() => new Promise<void>(() => {}));
    let done = false;
    const closing = closeWorker(worker, logger, 10_000).then(() => (done = true));
    await vi.advanceTimersByTimeAsync(9_000);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(2_000);
    await closing;
    expect(worker.disconnect).toHaveBeenCalledOnce();
  });

  it('waits as long as one of its jobs runs in this process', async () => {
    vi.useFakeTimers();
    let finishJob!: () => void;
    const processor = trackRunning('research', () => new Promise<void>((resolve) => (finishJob = resolve)));
    const job = processor({ name: 'research-step', id: 'run-1-step-1' } as Job, 'token');
    const worker = fakeWorker(() => new Promise<void>(() => {}));
    let done = false;
    const closing = closeWorker(worker, logger, 10_000).then(() => (done = true));
    await vi.advanceTimersByTimeAsync(60_000);
    expect(done).toBe(false);
    finishJob();
    await job;
    jobEnded('research', { name: 'research-step', id: 'run-1-step-1' });
    await vi.advanceTimersByTimeAsync(11_000);
    await closing;
    expect(worker.disconnect).toHaveBeenCalledOnce();
  });

  it("does not cut off a job's completion write: its processor returned, but BullMQ has not recorded its end (outside review of 54)", async () => {
    vi.useFakeTimers();
    const processor = trackRunning('research', async () => 'done');
    await processor({ name: 'research-step', id: 'run-2-step-1' } as Job, 'token');
    const worker = fakeWorker(() => new Promise<void>(() => {}));
    let done = false;
    const closing = closeWorker(worker, logger, 10_000).then(() => (done = true));
    await vi.advanceTimersByTimeAsync(20_000); // moveToFinished waits on a failover: the close waits with it
    expect(done).toBe(false);
    expect(worker.disconnect).not.toHaveBeenCalled();
    jobEnded('research', { name: 'research-step', id: 'run-2-step-1' }); // BullMQ's completed event
    await vi.advanceTimersByTimeAsync(11_000);
    await closing;
    expect(worker.disconnect).toHaveBeenCalledOnce();
  });

  it('takes a job whose end BullMQ never reports as ended after COMPLETION_WRITE_MS (the write died with its connection)', async () => {
    vi.useFakeTimers();
    const processor = trackRunning('research', async () => 'done');
    await processor({ name: 'research-step', id: 'run-3-step-1' } as Job, 'token');
    const worker = fakeWorker(() => new Promise<void>(() => {}));
    let done = false;
    const closing = closeWorker(worker, logger, 10_000).then(() => (done = true));
    await vi.advanceTimersByTimeAsync(COMPLETION_WRITE_MS - 1_000);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(12_000);
    await closing;
    expect(worker.disconnect).toHaveBeenCalledOnce();
  });
});
