// A graceful shutdown has a deadline: BullMQ's worker.close() waits for active jobs without one, and
// a worker whose job hung on a dead connection during a failover never exited on SIGTERM (the cluster
// chaos soak of 2026-11-29, twice). Past SHUTDOWN_TIMEOUT_MS the process exits and the job is redelivered.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { closeWithin } from '../../src/runtime/process.js';
import { loadConfig } from '../../src/config.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('closeWithin', () => {
  it('says closed when the close finishes first', async () => {
    await expect(closeWithin(async () => {}, 60_000)).resolves.toBe('closed');
  });

  it('says timed-out when the close never finishes', async () => {
    vi.useFakeTimers();
    const outcome = closeWithin(() => new Promise<void>(() => {}), 25_000);
    await vi.advanceTimersByTimeAsync(25_000);
    await expect(outcome).resolves.toBe('timed-out');
  });

  it('passes a failing close on as an error', async () => {
    await expect(closeWithin(() => Promise.reject(new Error('redis gone')), 60_000)).rejects.toThrow('redis gone');
  });
});

describe('SHUTDOWN_TIMEOUT_MS', () => {
  it('defaults to 25 s, under a supervisor’s usual 30 s before SIGKILL', () => {
    expect(loadConfig({ NODE_ENV: 'test' }).worker.shutdownTimeoutMs).toBe(25_000);
    expect(loadConfig({ NODE_ENV: 'test', SHUTDOWN_TIMEOUT_MS: '5000' }).worker.shutdownTimeoutMs).toBe(5_000);
  });
});
