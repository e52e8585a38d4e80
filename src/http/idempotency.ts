// Idempotency-Key on the POSTs of /api/webhooks: a client that retries a
// request it got no answer to (a timeout, a dropped connection) gets the answer
// the first one got, and the write is done once.
//
// The key is the account's (two keys of one account share their keys' space)
// and lives 24 h in Redis with a fingerprint of the request (method, path,
// body) and, once answered, the answer sealed with the webhook secret box (a
// create answer holds the subscription's secret). The first request claims the
// key with SET NX before its handler runs; one arriving meanwhile with the same
// fingerprint waits for the answer (up to a deadline), so 20 concurrent sends
// make one subscription and get one answer. Another request under a key in use
// gets 409. An answer of 5xx is not kept: the claim is released so a retry
// runs again.
//
// Redis alone cannot cover a process that dies between its write and keeping
// the answer: the claim then expires with nothing kept, and the retry would run
// again. So the handler gets the claim too, and a create records the key with
// its subscription in Postgres, in the same transaction: the retry finds it.
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Redis } from '../redis/connection.js';
import type { SecretBox } from '../webhooks/secret-box.js';
import { invalidParam, problem, ProblemError } from './problem.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set while this request holds an Idempotency-Key's claim: its answer is kept under it. */
    idempotencyClaim?: {
      redisKey: string;
      keyHash: string;
      fingerprint: string;
      /** False: the handler found the key bound to another request (in Postgres); release the claim instead of keeping this answer. */
      keep?: boolean;
    };
  }
}

export interface IdempotencyOptions {
  redis: Redis;
  /** The Redis key of an account's Idempotency-Key (hashed). */
  keyOf: (accountId: string, keyHash: string) => string;
  box: SecretBox;
  /** How long a request waits for the first one with its key to be answered. */
  waitMs?: number;
}

const KEEP_SECONDS = 24 * 3600;
/** A claim outlives the longest request (HTTP_REQUEST_TIMEOUT_MS, 30 s) but not a crash by long. */
const CLAIM_MS = 60_000;
const POLL_MS = 25;
/** What an Idempotency-Key may be: 1–255 visible ASCII characters (research submissions read it too). */
export const KEY_SHAPE = /^[\x21-\x7e]{1,255}$/;
/** The headers an answer is replayed with. */
const KEPT_HEADERS = ['content-type', 'etag', 'location'] as const;

interface Stored {
  fingerprint: string;
  /** Absent while the first request is being answered. */
  answer?: string;
}

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export const sha256 = (text: string) => createHash('sha256').update(text).digest('base64url');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function registerIdempotency(app: FastifyInstance, options: IdempotencyOptions): void {
  const { redis, box } = options;
  const waitMs = options.waitMs ?? 10_000;

  const claim = (redisKey: string, fingerprint: string) =>
    redis.set(redisKey, JSON.stringify({ fingerprint } satisfies Stored), 'PX', CLAIM_MS, 'NX');

  // After validation: a request refused for its body never takes a key.
  app.addHook('preHandler', async (request: FastifyRequest, reply: FastifyReply) => {
    if (request.method !== 'POST') return;
    const header = request.headers['idempotency-key'];
    if (header === undefined) return;
    if (typeof header !== 'string' || !KEY_SHAPE.test(header))
      throw invalidParam('Idempotency-Key', 'must be 1–255 visible ASCII characters (a UUID is a good choice)');
    const keyHash = sha256(header);
    const redisKey = options.keyOf(request.apiKey!.accountId, keyHash);
    const fingerprint = sha256(`${request.method} ${request.url}\n${JSON.stringify(request.body ?? null)}`);
    const deadline = Date.now() + waitMs;
    for (;;) {
      if ((await claim(redisKey, fingerprint)) === 'OK') {
        request.idempotencyClaim = { redisKey, keyHash, fingerprint };
        return;
      }
      const raw = await redis.get(redisKey);
      // Released (the first request failed) or expired between the two commands: claim it again.
      if (raw === null && Date.now() < deadline) continue;
      const stored: Stored = raw === null ? { fingerprint } : (JSON.parse(raw) as Stored);
      if (stored.fingerprint !== fingerprint) {
        throw new ProblemError(
          problem(
            'idempotencyKeyReused',
            'This Idempotency-Key was used in the last 24 h for another request (another path or body). Use a new key for a new request.',
          ),
        );
      }
      if (stored.answer !== undefined) {
        const answer = JSON.parse(box.open(stored.answer)) as Answer;
        return reply.code(answer.status).headers(answer.headers).header('idempotent-replayed', 'true').send(answer.body);
      }
      if (Date.now() >= deadline) {
        throw new ProblemError(
          problem(
            'idempotencyInProgress',
            `The first request with this Idempotency-Key is still being answered after ${Math.round(waitMs / 1000)} s; retry shortly with the same key.`,
          ),
          { 'retry-after': '1' },
        );
      }
      await sleep(POLL_MS);
    }
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const held = request.idempotencyClaim;
    if (!held) return payload;
    request.idempotencyClaim = undefined;
    try {
      if (reply.statusCode >= 500 || held.keep === false) {
        await redis.del(held.redisKey);
        return payload;
      }
      const headers: Record<string, string> = {};
      for (const name of KEPT_HEADERS) {
        const value = reply.getHeader(name);
        if (value !== undefined) headers[name] = String(value);
      }
      const answer: Answer = { status: reply.statusCode, headers, body: typeof payload === 'string' ? payload : '' };
      await redis.set(
        held.redisKey,
        JSON.stringify({ fingerprint: held.fingerprint, answer: box.seal(JSON.stringify(answer)) } satisfies Stored),
        'EX',
        KEEP_SECONDS,
      );
    } catch (error) {
      // The write is done and answered; a retry will run again once the claim expires. Said, not hidden.
      request.log.warn({ err: error }, 'the answer to an Idempotency-Key request could not be kept');
    }
    return payload;
  });
}
