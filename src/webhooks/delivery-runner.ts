// One attempt at a delivery, with its I/O: the delivery's row, the rendered
// body, the delivery gate (its account's slots, its subscription's circuit),
// the signed POST, the attempt's record and what the decision
// (domain/webhooks/delivery-decision.ts) says to write. Deliveries in flight
// together share their reads and their writes (Batcher). The deliver job
// (jobs/webhook-deliver.job.ts) turns the outcome into BullMQ's terms.
import { Batcher } from '../db/batcher.js';
import type { Db } from '../db/connection.js';
import type { AddressPolicy } from '../domain/webhooks/address-policy.js';
import { afterAttempt, beforeAttempt, type AfterAttempt, type DeliveryState } from '../domain/webhooks/delivery-decision.js';
import { MAX_ATTEMPTS } from '../domain/webhooks/retry.js';
import { gateSleep, receiverFailing } from '../domain/webhooks/fairness.js';
import { webhookDeliveries, webhookLatency } from '../observability/metrics.js';
import { contextFrom, currentTraceparent, inSpan, linkTo, SpanKind, tracingEnabled } from '../observability/tracing.js';
import { JOB } from '../queue/job-catalogue.js';
import { finishDelivery, loadDeliveries, recordAttempts, runTracesOfDeliveries, type AttemptRecord } from './delivery.repository.js';
import type { DeliveryGate } from './delivery-gate.js';
import { loadEventsWithInsights, type EventWithInsight } from './event.repository.js';
import { webhookBody } from './payload.js';
import type { SecretBox } from './secret-box.js';
import { send } from './sender.js';
import { disableBySystem, setFailingSince, signingSecrets } from './subscription.repository.js';

export interface DeliverDeps {
  db: Db;
  box: SecretBox;
  policy: AddressPolicy;
  /** Overall deadline of one attempt (WEBHOOK_TIMEOUT_MS). */
  timeoutMs?: number;
  baseUrl: string;
  disableAfterMs: number;
  onChange?: () => Promise<void>;
  /** Slots per account and circuits per subscription (none: every attempt goes, as in tests of the sender alone). */
  gate?: DeliveryGate;
  /** Wakes a parked delivery's job (its account handed it a slot); false if it is not asleep (yet). */
  wake?: (jobId: string) => Promise<boolean>;
  /**
   * Removes a parked delivery's job once this worker has delivered it in its
   * stead (carryOn); none: every parked delivery is woken to run its own job.
   */
  forget?: (jobId: string) => Promise<void>;
}

/** How long a held delivery (its account suspended) sleeps before it looks again; `accounts resume` wakes it at once. */
export const HELD_DELIVERY_RECHECK_MS = 60_000;

/**
 * How long one job goes on delivering its account's parked deliveries with
 * its slot (carryOn) before it wakes the next one instead: long enough that
 * the wake-ups cost little, short enough that a worker closing waits little.
 */
export const ADOPT_FOR_MS = 5_000;

type DeliveryRow = NonNullable<Awaited<ReturnType<typeof loadDeliveries>>[number]>;

const stateOf = (row: DeliveryRow): DeliveryState => ({
  status: row.status,
  subscriptionExists: row.sub_id !== null,
  subscriptionState: row.state,
  disabledReason: row.disabled_reason,
  accountSuspended: row.account_status === 'suspended',
});

const ownerOf = (row: DeliveryRow): string => row.account_id ?? 'operators';

/** The delivery a deliver job's id names (job-catalogue.ts: `deliver-<id>`, `deliver-<id>-replay-<n>`). */
export function deliveryIdOfJob(jobId: string): string | undefined {
  return /^deliver-([a-z]+_[^-]+)(?:-replay-\d+)?$/.exec(jobId)?.[1];
}

/** The job's side of an attempt: its id, and its attempts so far. */
export interface AttemptJob {
  id: string;
  deliveryId: string;
  attemptsMade: number;
  attemptsStarted: number;
  maxAttempts: number;
}

export type DeliveryOutcome =
  | { kind: 'done'; result: Record<string, unknown> }
  /** Sleep this long without spending an attempt (held, or the gate said not now). */
  | { kind: 'sleep'; ms: number }
  /** Parked by its account's slots: sleep (without spending an attempt) until woken, `ms` at most; see wokenWhileParking. */
  | { kind: 'park'; ms: number }
  /** Failed: retried on the schedule, or (`final`) never again. */
  | { kind: 'failed'; message: string; final: boolean };

/**
 * Rendered bodies by event id: every delivery of an event sends the same
 * bytes. The deliveries of a new event arrive together, so the first one's
 * read is shared by the others (and by other events' first reads, batched).
 */
class BodyCache {
  private readonly bodies = new Map<string, Promise<string>>();
  constructor(private readonly events: Batcher<string, EventWithInsight | undefined>) {}

  get(eventId: string, baseUrl: string): Promise<string> {
    let body = this.bodies.get(eventId);
    if (!body) {
      body = this.events.submit(eventId).then((event) => {
        if (!event) throw new Error(`outbox event ${eventId} does not exist`);
        return webhookBody(event, event.insight, baseUrl);
      });
      if (this.bodies.size >= 5_000) this.bodies.delete(this.bodies.keys().next().value!);
      this.bodies.set(eventId, body);
      body.catch(() => this.bodies.delete(eventId)); // a failed read is not cached
    }
    return body;
  }
}

export class DeliveryRunner {
  private readonly bodies: BodyCache;
  private readonly deliveries: Batcher<string, DeliveryRow | undefined>;
  private readonly attempts: Batcher<AttemptRecord, void>;

  constructor(private readonly deps: DeliverDeps) {
    this.bodies = new BodyCache(new Batcher((ids: string[]) => loadEventsWithInsights(deps.db, ids)));
    this.deliveries = new Batcher((ids: string[]) => loadDeliveries(deps.db, ids));
    this.attempts = new Batcher((rows: AttemptRecord[]) => recordAttempts(deps.db, rows));
  }

  /** Wakes the parked delivery its account's freed slot was handed to: its job runs the attempt. */
  private async wake(jobId: string | undefined): Promise<void> {
    // Not asleep yet (still lying down): it finds the wake-up itself (wokenWhileParking).
    // Once awake, its wake-up is left to lapse (60 s): one write less a delivery; found again, it would only wake a parked job once more.
    if (jobId !== undefined && this.deps.wake) await this.deps.wake(jobId);
  }

  /** After a parked job has gone to sleep: whether a slot was handed to it meanwhile (then it wakes itself). */
  async wokenWhileParking(jobId: string): Promise<boolean> {
    return ((await this.deps.gate?.claimWakes([jobId])) ?? []).length > 0;
  }

  async attempt(job: AttemptJob): Promise<DeliveryOutcome> {
    const { deps } = this;
    const row = await this.deliveries.submit(job.deliveryId);
    if (!row) return { kind: 'done', result: { skipped: 'no such delivery' } };
    const before = beforeAttempt(stateOf(row));
    if (before.kind === 'skip') return { kind: 'done', result: { skipped: before.reason } };
    if (before.kind === 'hold') return { kind: 'sleep', ms: HELD_DELIVERY_RECHECK_MS };
    if (before.kind === 'close') {
      await finishDelivery(deps.db, row.id, 'failed', before.error);
      return { kind: 'done', result: { skipped: before.reason } };
    }
    const subscriptionId = row.sub_id!;
    const body = await this.bodies.get(row.event_id, deps.baseUrl);
    const owner = ownerOf(row);
    if (deps.gate) {
      const entry = await deps.gate.enter(owner, subscriptionId, job.id);
      if (!entry.go) {
        const { baseMs, spreadMs } = gateSleep(entry);
        return { kind: entry.why === 'account' ? 'park' : 'sleep', ms: baseMs + Math.floor(Math.random() * spreadMs) };
      }
    }
    // A delivery never replayed has had one job: every attempt recorded on its row is that job's, including
    // one another job made while carrying it (adopt), which BullMQ did not count (security review: a carried
    // failure plus the job's own try was one POST more than MAX_ATTEMPTS).
    const made = row.replays === 0 ? Math.max(job.attemptsMade, row.attempts) : job.attemptsMade;
    const until = Date.now() + ADOPT_FOR_MS;
    const { decision, code, attempt, next, recorded } = await this.sendOnce(
      row,
      owner,
      job.id,
      body,
      { attemptsMade: made, maxAttempts: job.maxAttempts },
      true,
    );
    await recorded;

    if (decision.kind === 'delivered') {
      if (decision.clearFailing) await setFailingSince(deps.db, subscriptionId, false);
      if (next !== undefined) await this.carryOn(owner, next, until);
      return { kind: 'done', result: { status: code, attempt } };
    }
    if (decision.markFailing) await setFailingSince(deps.db, subscriptionId, true);
    if (decision.kind === 'retry') return { kind: 'failed', message: decision.message, final: false };
    if (decision.disable) {
      await disableBySystem(deps.db, subscriptionId, decision.disable);
      await deps.onChange?.();
    }
    await finishDelivery(deps.db, row.id, 'failed', decision.error);
    return { kind: 'failed', message: decision.message, final: true };
  }

  /**
   * Signs and sends, gives the slot back (telling the circuit how the receiver
   * answered) and records the attempt. The slot goes to the account's first
   * parked delivery: after a delivered attempt it is answered (`next`, and
   * whether it has entered the gate already), for this job to deliver in turn
   * (carryOn); otherwise its own job is woken now. The attempt's record is
   * `recorded`, not awaited here: a carried delivery's next POST need not wait
   * for the previous one's write (its parked job is removed only once written).
   */
  private async sendOnce(
    row: DeliveryRow,
    owner: string,
    jobId: string,
    body: string,
    job: { attemptsMade: number; maxAttempts: number },
    /** Deliver the next parked delivery here if this attempt is delivered (carryOn); false once carrying is over. */
    carry: boolean,
  ): Promise<{
    decision: AfterAttempt;
    code: number | null;
    attempt: number;
    next: { jobId: string; entered: boolean } | undefined;
    recorded: Promise<void>;
  }> {
    const { deps } = this;
    const subscriptionId = row.sub_id!;
    const attempt = row.attempts + 1;
    const at = new Date();
    const secrets = signingSecrets(deps.box, {
      secret_encrypted: row.secret_encrypted!, // the join found the subscription (checked above)
      previous_secret_encrypted: row.previous_secret_encrypted,
      previous_secret_expires_at: row.previous_secret_expires_at,
    });
    let result: Awaited<ReturnType<typeof send>>;
    try {
      // The event id is the webhook-id: identical across retries and replays, so receivers can deduplicate.
      result = await send(row.url!, { id: row.event_id, body, secrets }, deps.policy, deps.timeoutMs);
    } catch (error) {
      await this.wake((await deps.gate?.leaveAndWake(owner, subscriptionId, jobId, 'other'))?.woken);
      throw error;
    }
    const code = result.statusCode;
    const decision = afterAttempt({
      statusCode: code,
      refused: result.refused,
      error: result.error,
      deliveryId: row.id,
      attempt,
      attemptsMade: job.attemptsMade,
      maxAttempts: job.maxAttempts,
      failingSince: row.failing_since,
      disableAfterMs: deps.disableAfterMs,
      now: new Date(),
    });
    const delivered = decision.kind === 'delivered';
    const outcome = delivered ? 'ok' : receiverFailing(code, result.refused) ? 'failing' : 'other';
    const carrying = delivered && carry && deps.forget !== undefined;
    const handed = deps.gate ? await deps.gate.leaveAndHandOn(owner, subscriptionId, jobId, outcome, carrying) : undefined;
    const next = carrying && handed?.woken !== undefined ? { jobId: handed.woken, entered: handed.entered } : undefined;
    if (next === undefined) await this.wake(handed?.woken);
    if (code !== null) webhookLatency.observe(result.latencyMs / 1000);
    webhookDeliveries.inc({ outcome: decision.label });
    // One write (shared with the other deliveries finishing now): the attempt log and the delivery's new state.
    const recorded = this.attempts.submit({
      deliveryId: row.id,
      attempt,
      at,
      statusCode: code,
      latencyMs: result.latencyMs,
      error: result.error,
      succeeded: delivered,
    });
    recorded.catch(() => undefined); // whoever awaits it sees the failure; unawaited, it must not crash the process
    return { decision, code, attempt, next, recorded };
  }

  /**
   * Delivers, in this job, the account's parked deliveries its slot is handed
   * to in turn, for ADOPT_FOR_MS at most; then the slot's holder is woken as
   * before. Waking a parked job costs its account's slot some 100 ms (the
   * promote, BullMQ's pickup, the row read again), longer than a loopback
   * POST: with the slot kept here, one account's backlog moves at the pace of
   * its receivers, not of the wake-ups (issue 48). The parked job stays asleep
   * until its delivery is recorded, and is removed then: a crash meanwhile
   * leaves it to wake at the end of its sleep and deliver (at least once).
   * Nothing of another account's waits on this: its deliveries have slots of
   * their own and take their turns in the queue.
   */
  private async carryOn(owner: string, first: { jobId: string; entered: boolean }, until: number): Promise<void> {
    const removals: Array<Promise<void>> = [];
    let next: { jobId: string; entered: boolean } | undefined = first;
    try {
      while (next !== undefined && Date.now() < until) {
        const { jobId, entered } = next;
        next = undefined;
        try {
          const step = await this.adopt(owner, jobId, entered, until);
          // Removed once its attempt is written; not written, its job is woken to deliver it (at least once).
          if (step.forget)
            removals.push(
              step.recorded.then(
                () => this.deps.forget!(jobId).catch(() => undefined),
                () => this.wake(jobId).catch(() => undefined),
              ),
            );
          next = step.next;
        } catch {
          // Its own job sees to it: woken now, or at the end of its sleep if Redis is away.
          await this.wake(jobId).catch(() => undefined);
        }
      }
      await this.wake(next?.jobId);
    } finally {
      await Promise.all(removals);
    }
  }

  /**
   * A carried delivery's POST as a span of its own run's trace, where its own job would have sent it
   * (linked to the job carrying it, whose span it would otherwise be under: another event's, maybe
   * another run's). A delivery of no traced run (a refresh's event) gets a trace of its own, linked
   * alike. Just the send when tracing is off.
   */
  private async traceCarried<T>(deliveryId: string, send: () => Promise<T>): Promise<T> {
    if (!tracingEnabled()) return send();
    const runTrace = (await runTracesOfDeliveries(this.deps.db, [deliveryId])).get(deliveryId);
    return inSpan(
      `${JOB.webhookDeliver.queue} ${JOB.webhookDeliver.name}`,
      {
        kind: SpanKind.CONSUMER,
        ...(runTrace ? { parent: contextFrom(runTrace) } : { root: true }),
        links: linkTo(currentTraceparent()),
        attributes: { 'messaging.destination.name': JOB.webhookDeliver.queue, 'webhooks.delivery.carried': true },
      },
      send,
    );
  }

  /**
   * One parked delivery whose slot this job holds: answers the slot's next
   * holder (undefined: none, or woken already) and whether the parked job is
   * done with (its delivery delivered or closed). What is not plainly
   * delivered, closed or gone goes back to its own job, which keeps the
   * delivery's schedule, held accounts and circuits as ever.
   */
  private async adopt(
    owner: string,
    jobId: string,
    /** The slot was handed to it entered (leaveAndHandOn): no enter() before its POST. */
    entered: boolean,
    until: number,
  ): Promise<{ next: { jobId: string; entered: boolean } | undefined; forget: boolean; recorded: Promise<void> }> {
    const { deps } = this;
    const gate = deps.gate!;
    const done = Promise.resolve();
    const handOn = async (subscriptionId: string) => {
      const handed = await gate.leaveAndHandOn(owner, subscriptionId, jobId, 'other', Date.now() < until);
      return handed.woken === undefined ? undefined : { jobId: handed.woken, entered: handed.entered };
    };
    const deliveryId = deliveryIdOfJob(jobId);
    const row = deliveryId === undefined ? undefined : await this.deliveries.submit(deliveryId);
    if (!row) return { next: await handOn(''), forget: deliveryId !== undefined, recorded: done };
    const before = beforeAttempt(stateOf(row));
    if (before.kind === 'skip') return { next: await handOn(row.sub_id ?? ''), forget: true, recorded: done };
    if (before.kind === 'close') {
      await finishDelivery(deps.db, row.id, 'failed', before.error);
      return { next: await handOn(row.sub_id ?? ''), forget: true, recorded: done };
    }
    if (before.kind === 'hold') {
      // Still asleep, as a held delivery sleeps; `accounts resume` wakes it.
      return { next: await handOn(row.sub_id!), forget: false, recorded: done };
    }
    // Only a first attempt is carried: a delivery that has tried before goes back to its own job, which
    // keeps its retry count and schedule (attempt() counts a carried first attempt as its own).
    if (row.attempts > 0 || row.replays > 0) {
      await this.wake(jobId);
      return { next: undefined, forget: false, recorded: done };
    }
    const subscriptionId = row.sub_id!;
    const body = await this.bodies.get(row.event_id, deps.baseUrl);
    if (!entered) {
      const entry = await gate.enter(owner, subscriptionId, jobId);
      if (!entry.go) {
        // Parked again (its slot lapsed): asleep, in line. Behind a circuit: its own job waits on it.
        if (entry.why === 'account') return { next: undefined, forget: false, recorded: done };
        const next = await handOn(subscriptionId);
        await this.wake(jobId);
        return { next, forget: false, recorded: done };
      }
    }
    // Its first attempt, as its job would make it: a failure marks the circuit, a final answer (410, or a
    // single allowed attempt) ends it here; otherwise its job is woken and tries again at once, counting this one.
    const { decision, next, recorded } = await this.traceCarried(row.id, () =>
      this.sendOnce(row, owner, jobId, body, { attemptsMade: 0, maxAttempts: MAX_ATTEMPTS }, Date.now() < until),
    );
    if (decision.kind !== 'delivered') {
      await recorded;
      if (decision.markFailing) await setFailingSince(deps.db, subscriptionId, true);
      if (decision.kind === 'retry') {
        await this.wake(jobId);
        return { next: undefined, forget: false, recorded: done };
      }
      if (decision.disable) {
        await disableBySystem(deps.db, subscriptionId, decision.disable);
        await deps.onChange?.();
      }
      await finishDelivery(deps.db, row.id, 'failed', decision.error);
      return { next: undefined, forget: true, recorded: done };
    }
    if (decision.clearFailing) await setFailingSince(deps.db, subscriptionId, false);
    return { next, forget: true, recorded };
  }
}
