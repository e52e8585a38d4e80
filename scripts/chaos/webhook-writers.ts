// API clients managing their own webhook subscriptions through /api/webhooks
// while the faults land: creates with an Idempotency-Key, retried with the same
// key until they get an answer, as a careful client does; If-Match updates;
// deletes. What they were told is checked against Postgres at the end: every
// create that was answered exists once, none exists twice, no account holds
// more than its plan allows, nothing deleted came back, and no answer was a 500.
import type { Db } from '../../src/db/connection.js';
import type { Slot } from './supervisor.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The plans' default subscription limits (WEBHOOK_MAX_SUBSCRIPTIONS_*), which the soak leaves as they are. */
const PLAN_LIMITS = { starter: 10, pro: 50 } as const;
/** How long a client keeps retrying one request through the faults before it gives up on it. */
const RETRY_FOR_MS = 150_000;
/** Answers a client retries the same request after: the web process was away or busy. */
const RETRYABLE = new Set([408, 429, 502, 503, 504]);

export interface WriterAccount {
  plan: keyof typeof PLAN_LIMITS;
  accountId: string;
  key: string;
}

interface Created {
  account: WriterAccount;
  idempotencyKey: string;
  /** A keyword no insight carries: these subscriptions match nothing, so the soak's delivery count is theirs alone. */
  marker: string;
  id?: string;
  /** 201 (made or replayed), refused (409 for the plan's limit, or the day's quota spent), another answer, or none in time. */
  outcome: 'created' | 'refused' | 'unexpected' | 'unanswered';
  deleted: boolean;
}

export interface WebhookWriterStats {
  requests: number;
  status: Record<string, number>;
  transportErrors: number;
  creates: number;
  replayed: number;
  limitRefusals: number;
  quotaRefusals: number;
  updates: number;
  preconditionFailures: number;
  deletes: number;
  /** Answers to a create that were none of 201, the plan's 409, or one to retry. */
  unexpectedCreateAnswers: string[];
}

export function startWebhookWriters(
  webs: () => Slot[],
  accounts: WriterAccount[],
  /** Where the subscriptions point (they match nothing, so nothing is sent there). */
  receiverUrl: string,
  seed: number,
  random: () => number,
): { stop(): Promise<void>; stats: WebhookWriterStats; check(db: Db): Promise<string[]> } {
  let stopped = false;
  let serial = 0;
  const created: Created[] = [];
  const stats: WebhookWriterStats = {
    requests: 0,
    status: {},
    transportErrors: 0,
    creates: 0,
    replayed: 0,
    limitRefusals: 0,
    quotaRefusals: 0,
    updates: 0,
    preconditionFailures: 0,
    deletes: 0,
    unexpectedCreateAnswers: [],
  };

  /** One request, sent again (same headers, same body) until it gets an answer it need not retry. */
  const send = async (account: WriterAccount, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const deadline = Date.now() + RETRY_FOR_MS;
    while (Date.now() < deadline) {
      const live = webs().filter((s) => s.process.running && s.env.PORT);
      const web = live[Math.floor(random() * live.length)];
      if (!web) {
        await sleep(100);
        continue;
      }
      try {
        const res = await fetch(`http://127.0.0.1:${web.env.PORT}${path}`, {
          method,
          headers: {
            authorization: `Bearer ${account.key}`,
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
            ...headers,
          },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(20_000),
        });
        const text = await res.text();
        stats.requests += 1;
        stats.status[res.status] = (stats.status[res.status] ?? 0) + 1;
        const type = res.status >= 400 && text.startsWith('{') ? ((JSON.parse(text) as { type?: string }).type ?? '') : '';
        const inProgress = res.status === 409 && type === '/problems/idempotency-request-in-progress';
        // The day's quota is an answer for the day, not a moment to wait out.
        const final = type === '/problems/quota-exceeded' || (!RETRYABLE.has(res.status) && !inProgress);
        if (final) return { status: res.status, type, text, headers: res.headers };
      } catch {
        // The process was killed mid-request, or did not answer: the same request again.
        stats.transportErrors += 1;
      }
      await sleep(200 + Math.floor(random() * 300));
    }
    return undefined;
  };

  const createOne = async (account: WriterAccount) => {
    serial += 1;
    const entry: Created = {
      account,
      idempotencyKey: `chaos-${seed}-${serial}-${Math.floor(random() * 1e9)}`,
      marker: `zqx${seed}x${serial}`,
      outcome: 'unanswered',
      deleted: false,
    };
    created.push(entry);
    const answer = await send(
      account,
      'POST',
      '/api/webhooks',
      { url: receiverUrl, keywords: [entry.marker], events: ['insight.created'] },
      { 'idempotency-key': entry.idempotencyKey },
    );
    stats.creates += 1;
    if (answer?.status === 201) {
      entry.outcome = 'created';
      entry.id = (JSON.parse(answer.text) as { data: { id: string } }).data.id;
      if (answer.headers.get('idempotent-replayed') === 'true') stats.replayed += 1;
    } else if (answer?.status === 409 && answer.type === '/problems/subscription-limit') {
      entry.outcome = 'refused';
      stats.limitRefusals += 1;
    } else if (answer?.status === 429 && answer.type === '/problems/quota-exceeded') {
      entry.outcome = 'refused';
      stats.quotaRefusals += 1;
    } else if (answer) {
      entry.outcome = 'unexpected';
      stats.unexpectedCreateAnswers.push(`${answer.status} ${answer.type || answer.text.slice(0, 200)}`);
    }
  };

  const updateOne = async (entry: Created) => {
    const read = await send(entry.account, 'GET', `/api/webhooks/${entry.id}`);
    const etag = read?.status === 200 ? read.headers.get('etag') : null;
    if (!etag) return;
    const answer = await send(
      entry.account,
      'PATCH',
      `/api/webhooks/${entry.id}`,
      { min_score: Math.round(random() * 100) / 100 },
      { 'if-match': etag },
    );
    stats.updates += 1;
    if (answer?.status === 412) stats.preconditionFailures += 1;
  };

  const deleteOne = async (entry: Created) => {
    const answer = await send(entry.account, 'DELETE', `/api/webhooks/${entry.id}`);
    // 404 on a retry: the first attempt deleted it and its answer was lost.
    if (answer?.status === 204 || answer?.status === 404) {
      entry.deleted = true;
      stats.deletes += 1;
    }
  };

  const loop = async () => {
    while (!stopped) {
      const account = accounts[Math.floor(random() * accounts.length)]!;
      const live = created.filter((c) => c.account === account && c.outcome === 'created' && !c.deleted);
      const roll = random();
      if (roll < 0.6 || live.length === 0) await createOne(account);
      else if (roll < 0.8) await updateOne(live[Math.floor(random() * live.length)]!);
      else await deleteOne(live[Math.floor(random() * live.length)]!);
      // About 1.5 requests a second in all: a Starter account's 1,000 a day last a 10-minute soak.
      await sleep(200 + Math.floor(random() * 600));
    }
  };
  const loops = Array.from({ length: 2 }, loop);

  return {
    stats,
    async stop() {
      stopped = true;
      await Promise.all(loops);
    },
    async check(db: Db): Promise<string[]> {
      const violations: string[] = [];
      const rows = await db
        .selectFrom('webhook_subscriptions')
        .select(['id', 'account_id', 'keywords'])
        .where(
          'account_id',
          'in',
          accounts.map((a) => a.accountId),
        )
        .execute();
      for (const entry of created) {
        const made = rows.filter((r) => r.keywords.includes(entry.marker));
        if (made.length > 1) violations.push(`the create with Idempotency-Key ${entry.idempotencyKey} made ${made.length} subscriptions`);
        if (entry.outcome === 'created' && !entry.deleted && (made.length !== 1 || made[0]!.id !== entry.id)) {
          violations.push(
            `subscription ${entry.id}, answered 201, is ${made.length === 0 ? 'missing' : `stored as ${made.map((m) => m.id).join(', ')}`}`,
          );
        }
        if (entry.deleted && made.length > 0) violations.push(`subscription ${entry.id} was deleted (answered 204) and is still there`);
        if (entry.outcome === 'refused' && made.length > 0)
          violations.push(`the create with Idempotency-Key ${entry.idempotencyKey} was refused, and made ${made[0]!.id}`);
      }
      for (const account of accounts) {
        const n = rows.filter((r) => r.account_id === account.accountId).length;
        if (n > PLAN_LIMITS[account.plan])
          violations.push(`the ${account.plan} account holds ${n} subscriptions (limit ${PLAN_LIMITS[account.plan]})`);
      }
      const unanswered = created.filter((c) => c.outcome === 'unanswered').length;
      if (unanswered > 0) violations.push(`${unanswered} webhook creates got no answer within ${RETRY_FOR_MS / 1000} s of retrying`);
      for (const answer of stats.unexpectedCreateAnswers) violations.push(`a webhook create was answered ${answer}`);
      for (const [status, n] of Object.entries(stats.status)) {
        if (/^5/.test(status) && status !== '503') violations.push(`${n} /api/webhooks answers with status ${status}`);
      }
      return violations;
    },
  };
}
