// A run followed to its end, as events: what the API's event stream (GET /api/research-runs/{id}/events)
// sends, and what an MCP server turns into progress notifications. `progress` on every change of the
// run's state or step, then one of `completed`, `failed` or `cancelled`, and it ends; a follow lasts at
// most its `maxMs` (then `reconnect`), and one started again begins with the run as it is then.
import type { Db } from '../db/connection.js';
import { findRun, type RunRow } from '../research/run.repository.js';
import { runSummary, type RunSummary } from './run.view.js';

export type RunEvent =
  { event: 'progress' | 'completed' | 'failed' | 'cancelled'; data: RunSummary } | { event: 'reconnect'; data: { detail: string } };

export interface FollowOptions {
  /** How often the run is read. */
  pollMs: number;
  /** How long one follow lasts before the follower is told to start again. */
  maxMs: number;
  /** Whether the follower has gone: then the follow ends without another read. */
  gone: () => boolean;
  /** Called after each wait, before the run is read again (the event stream's heartbeat). */
  waited?: () => void;
}

const ENDED = new Set<RunRow['status']>(['succeeded', 'failed', 'cancelled']);

export async function* followRun(db: Db, first: RunRow, options: FollowOptions): AsyncGenerator<RunEvent, void, void> {
  const deadline = Date.now() + options.maxMs;
  let last = '';
  let run = first;
  for (;;) {
    const summary = runSummary(run);
    const shown = JSON.stringify([summary.status, summary.progress.done, summary.waiting_reason]);
    if (shown !== last) {
      last = shown;
      yield { event: 'progress', data: summary };
    }
    if (ENDED.has(run.status)) {
      yield { event: run.status === 'succeeded' ? 'completed' : (run.status as 'failed' | 'cancelled'), data: summary };
      return;
    }
    if (Date.now() >= deadline) {
      yield {
        event: 'reconnect',
        data: { detail: `This stream has lasted its ${Math.round(options.maxMs / 60_000)} minutes: connect again to follow the run.` },
      };
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, options.pollMs));
    if (options.gone()) return;
    options.waited?.();
    run = (await findRun(db, run.id)) ?? run;
  }
}
