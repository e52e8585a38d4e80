// GET /api/research-runs/{id}/events: the run followed to its end (src/views/run-events.view.ts), as
// server-sent events, with the limits on how many streams one account and one web process hold open.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '../../../db/connection.js';
import type { RunRow } from '../../../research/run.repository.js';
import { followRun } from '../../../views/run-events.view.js';
import { problem, ProblemError } from '../../problem.js';

/** How often the event stream looks at the run, and how long one stream lasts before the client reconnects. */
const EVENTS_POLL_MS = 1_000;
/**
 * Event streams one account may hold open on one web process, and all accounts together. A stream costs a
 * read of its run from Postgres a second, so the process's bound is what bounds that load (500 reads a
 * second at most); the account's keeps one account from taking a process's share. It was 5, and an
 * assistant following a few ideas at once (each research_idea followed with a progressToken holds one, as
 * does each account page or script watching a run) met it at its sixth (outside review of 2026-11-28): 20
 * lets a team follow a compare_ideas batch of 5 several times over, and 25 such accounts still fill a process.
 */
export const STREAMS_PER_ACCOUNT = 20;
export const STREAMS_PER_PROCESS = 500;
const EVENTS_MAX_MS = 15 * 60_000;
const EVENTS_HEARTBEAT_MS = 15_000;

/** Server-sent events of a run's progress (followRun's events, each with an id); a client reconnecting is sent the state as it is now. */
async function streamRun(request: FastifyRequest, reply: FastifyReply, db: Db, first: RunRow): Promise<void> {
  reply.hijack();
  const raw = reply.raw;
  raw.writeHead(200, {
    // What the hooks set already: the security headers, RateLimit.
    ...(reply.getHeaders() as Record<string, string>),
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    'x-accel-buffering': 'no',
    connection: 'keep-alive',
  });
  let eventId = 0;
  const send = (event: string, data: unknown) => {
    eventId += 1;
    raw.write(`id: ${eventId}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  };
  // The client may have gone already (while the run was read): then the socket is destroyed and no 'close' will come.
  let closed = request.raw.socket?.destroyed ?? false;
  request.raw.socket?.once('close', () => (closed = true));
  raw.once('close', () => (closed = true));
  let lastBeat = Date.now();
  const waited = () => {
    if (Date.now() - lastBeat >= EVENTS_HEARTBEAT_MS) {
      raw.write(': still here\n\n');
      lastBeat = Date.now();
    }
  };
  try {
    for await (const { event, data } of followRun(db, first, {
      pollMs: EVENTS_POLL_MS,
      maxMs: EVENTS_MAX_MS,
      gone: () => closed || raw.destroyed,
      waited,
    })) {
      send(event, data);
    }
  } catch (error) {
    request.log.warn({ err: error, runId: first.id }, 'the research event stream stopped');
    if (!closed) send('error', { detail: 'The stream stopped on an error of ours; connect again.' });
  } finally {
    raw.end();
  }
}

/** The stream handler, counting the streams open on this process by account and in all. */
export function runEventStreams(): (request: FastifyRequest, reply: FastifyReply, db: Db, run: RunRow, accountId: string) => Promise<void> {
  const streams = new Map<string, number>();
  let openStreams = 0;
  return async (request, reply, db, run, accountId) => {
    const mine = streams.get(accountId) ?? 0;
    if (mine >= STREAMS_PER_ACCOUNT || openStreams >= STREAMS_PER_PROCESS) {
      throw new ProblemError(
        problem(
          'tooManyStreams',
          mine >= STREAMS_PER_ACCOUNT
            ? `Your account has ${mine} event streams open here, the most it may: close one, or poll GET /api/research-runs/{id}.`
            : 'This web process holds as many event streams as it may: poll GET /api/research-runs/{id}, or try again shortly.',
        ),
        { 'retry-after': '10' },
      );
    }
    streams.set(accountId, mine + 1);
    openStreams += 1;
    try {
      await streamRun(request, reply, db, run);
    } finally {
      openStreams -= 1;
      const left = (streams.get(accountId) ?? 1) - 1;
      if (left > 0) streams.set(accountId, left);
      else streams.delete(accountId);
    }
  };
}
