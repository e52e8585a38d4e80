// A research run followed to its end for an MCP client that asked for progress (a progressToken): the
// API's event stream of the run (GET /api/research-runs/{id}/events, one request of the quota), each
// change of its step count sent as a progress notification (the count only rises, as MCP asks).
import type { ApiCaller } from './api-caller.js';

/** How long a tool call follows a run before answering with it as it is (the API's stream lasts 15 minutes). */
export const FOLLOW_MAX_MS = 14 * 60_000;

/** A run as the API summarises it (RunSummarySchema in src/http/schemas/research.ts): what following reads of it. */
export interface FollowedRun {
  id: string;
  status: string;
  progress: { done: number; total: number; current: string | null };
  [field: string]: unknown;
}

export interface Progress {
  progress: number;
  total: number;
  message: string;
}

export interface Followed {
  run: FollowedRun;
  /** Whether the run ended (succeeded, failed or cancelled) while followed. */
  ended: boolean;
  /** Why following stopped before the end, if it did. */
  note?: string;
}

const ENDINGS = new Set(['completed', 'failed', 'cancelled']);

export async function followRun(
  api: ApiCaller,
  submitted: FollowedRun,
  report: (progress: Progress) => Promise<void>,
  signal: AbortSignal,
): Promise<Followed> {
  let run = submitted;
  let sent = -1;
  const bounded = AbortSignal.any([signal, AbortSignal.timeout(FOLLOW_MAX_MS)]);
  const opened = await api.stream(
    { method: 'GET', path: `/research-runs/${encodeURIComponent(run.id)}/events`, accept: 'text/event-stream' },
    bounded,
  );
  if ('text' in opened) {
    return { run, ended: false, note: `The run could not be followed (HTTP ${opened.status}): ask get_research_run for its progress.` };
  }
  try {
    for await (const { event, data } of opened.events) {
      if (event === 'reconnect' || event === 'error') break;
      run = JSON.parse(data) as FollowedRun;
      if (run.progress.done > sent) {
        sent = run.progress.done;
        const step = run.progress.current ? `, next: ${run.progress.current}` : '';
        await report({
          progress: sent,
          total: run.progress.total,
          message: `${run.status}: step ${sent} of ${run.progress.total} done${step}`,
        });
      }
      if (ENDINGS.has(event)) return { run, ended: true };
    }
  } catch (error) {
    if (!bounded.aborted) throw error;
  }
  return { run, ended: false, note: 'The run is still under way: ask get_research_run for its progress, or research_idea again later.' };
}
