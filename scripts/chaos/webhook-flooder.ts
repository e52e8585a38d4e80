// Clients that try to turn their plan's webhook sends into a flood (issue 35):
// a Free and a Starter account each point a subscription at a receiver that
// accepts connections and never answers (with 300 failed deliveries from
// before the soak to replay), then ping it and replay its deliveries as hard
// as their plan lets them, through the faults. Checked at
// the end against Postgres and the receiver: no account sent more than its
// plan's replays and pings a day, no delivery was attempted more than
// MAX_ATTEMPTS times per send, the silent receiver never held more than an
// account's delivery slots at once, and no answer was a 500. The soak's own
// receivers (alpha, beta) must still get every delivery meanwhile.
import net from 'node:net';
import { sql } from 'kysely';
import type { Db } from '../../src/db/connection.js';
import { newId } from '../../src/domain/ids.js';
import { recordEvents } from '../../src/webhooks/event.repository.js';
import { DEFAULT_DELIVERY_FAIRNESS } from '../../src/domain/webhooks/fairness.js';
import { MAX_ATTEMPTS } from '../../src/domain/webhooks/retry.js';
import { DEFAULT_WEBHOOK_SENDS } from '../../src/domain/webhooks/sends.js';
import type { Slot } from './supervisor.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Accepts connections, reads the request, never answers; counts connections open at once per path. */
export class SilentReceiver {
  private server: net.Server | undefined;
  private readonly sockets = new Set<net.Socket>();
  private readonly open = new Map<string, number>();
  /** The most connections open at once to each path (one path per subscription). */
  readonly most = new Map<string, number>();
  accepted = 0;
  port = 0;

  async listen(): Promise<void> {
    this.server = net.createServer((socket) => {
      this.sockets.add(socket);
      this.accepted += 1;
      let path: string | undefined;
      socket.on('error', () => {});
      socket.on('data', (chunk: Buffer) => {
        if (path !== undefined) return;
        path = /^[A-Z]+ (\S+) HTTP/.exec(chunk.toString('latin1'))?.[1] ?? '?';
        const now = (this.open.get(path) ?? 0) + 1;
        this.open.set(path, now);
        this.most.set(path, Math.max(this.most.get(path) ?? 0, now));
      });
      socket.once('close', () => {
        this.sockets.delete(socket);
        if (path !== undefined) this.open.set(path, this.open.get(path)! - 1);
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as net.AddressInfo).port;
  }

  urlFor(name: string): string {
    return `http://127.0.0.1:${this.port}/hooks/${name}`;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise((resolve) => this.server?.close(resolve));
  }
}

export interface FloodAccount {
  plan: 'free' | 'starter';
  accountId: string;
  key: string;
}

export interface FloodStats {
  requests: number;
  status: Record<string, number>;
  transportErrors: number;
  pings: number;
  replayed: number;
  sendsRefused: number;
  quotaRefused: number;
}

/** Deliveries a subscription had before the soak, failed: what its replays have to send. */
const HISTORY = 300;

async function failedHistory(db: Db, subscriptionId: string): Promise<void> {
  const start = Date.now() - 3_000_000;
  await db.transaction().execute(async (trx) => {
    const events = await recordEvents(
      trx,
      Array.from({ length: HISTORY }, () => ({ type: 'ping' as const, insightId: null, payload: {}, relayedAt: new Date() })),
    );
    await trx
      .insertInto('webhook_deliveries')
      .values(
        events.map((eventId, i) => ({
          id: newId('delivery'),
          event_id: eventId,
          subscription_id: subscriptionId,
          status: 'failed' as const,
          created_at: new Date(start + i * 1_000),
        })),
      )
      .execute();
  });
}

export function startWebhookFlooders(
  db: Db,
  webs: () => Slot[],
  accounts: FloodAccount[],
  silent: SilentReceiver,
  durationMs: number,
  random: () => number,
): { stop(): Promise<void>; stats: FloodStats; check(db: Db): Promise<string[]> } {
  let stopped = false;
  const stats: FloodStats = { requests: 0, status: {}, transportErrors: 0, pings: 0, replayed: 0, sendsRefused: 0, quotaRefused: 0 };
  const subscriptions = new Map<string, string>(); // account id → subscription id
  const since = new Date(Date.now() - 3_600_000).toISOString();

  const send = async (account: FloodAccount, path: string, body?: unknown) => {
    const live = webs().filter((s) => s.process.running && s.env.PORT);
    const web = live[Math.floor(random() * live.length)];
    if (!web) return undefined;
    try {
      const res = await fetch(`http://127.0.0.1:${web.env.PORT}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${account.key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(20_000),
      });
      const text = await res.text();
      stats.requests += 1;
      stats.status[res.status] = (stats.status[res.status] ?? 0) + 1;
      const type = res.status >= 400 && text.startsWith('{') ? ((JSON.parse(text) as { type?: string }).type ?? '') : '';
      return { status: res.status, type, text };
    } catch {
      stats.transportErrors += 1;
      return undefined;
    }
  };

  const flood = async (account: FloodAccount) => {
    // The plan's requests for the day, spread over the soak so the flood lasts through the faults.
    const quota = account.plan === 'free' ? 100 : 1_000;
    const gapMs = Math.max(50, Math.floor(durationMs / (quota * 1.1)));
    while (!stopped && !subscriptions.has(account.accountId)) {
      // Subscribed to every event: each new insight is one more delivery to replay.
      const made = await send(account, '/api/webhooks', { url: silent.urlFor(`flood-${account.plan}`) });
      if (made?.status === 201) {
        const id = (JSON.parse(made.text) as { data: { id: string } }).data.id;
        // The soak may terminate this harness's own Postgres connections at any moment (the
        // postgres-terminate-backends fault): the history is the flooder's set-up, not the product under
        // test, so it is written again (a transaction: all of it or none) rather than ending the soak.
        for (let attempt = 1; ; attempt += 1) {
          try {
            await failedHistory(db, id);
            break;
          } catch (error) {
            if (attempt >= 10 || stopped) throw error;
            await sleep(500);
          }
        }
        subscriptions.set(account.accountId, id);
      } else await sleep(500);
    }
    const id = subscriptions.get(account.accountId);
    while (!stopped && id) {
      const ping = random() < 0.4;
      const answer = await send(account, `/api/webhooks/${id}/${ping ? 'test' : 'replay'}`, ping ? undefined : { since });
      if (answer?.status === 202) {
        if (ping) stats.pings += 1;
        else stats.replayed += (JSON.parse(answer.text) as { data: { replayed: string[] } }).data.replayed.length;
      } else if (answer?.type === '/problems/webhook-sends-exceeded') stats.sendsRefused += 1;
      else if (answer?.type === '/problems/quota-exceeded') {
        // The day's requests are spent: nothing more to try today.
        stats.quotaRefused += 1;
        return;
      }
      await sleep(gapMs);
    }
  };
  const loops = accounts.map(flood);

  return {
    stats,
    async stop() {
      stopped = true;
      await Promise.all(loops);
    },
    async check(db: Db): Promise<string[]> {
      const violations: string[] = [];
      for (const account of accounts) {
        const days = await db
          .selectFrom('webhook_sends_daily')
          .select(['day', 'replays', 'pings'])
          .where('account_id', '=', account.accountId)
          .execute();
        for (const day of days) {
          const sent = day.replays + day.pings;
          if (sent > DEFAULT_WEBHOOK_SENDS.perDay[account.plan])
            violations.push(
              `the ${account.plan} flooder sent ${sent} replays and pings on ${String(day.day)} (plan allows ${DEFAULT_WEBHOOK_SENDS.perDay[account.plan]})`,
            );
        }
        const id = subscriptions.get(account.accountId);
        if (!id) {
          violations.push(`the ${account.plan} flooder never made its subscription`);
          continue;
        }
        const over = await sql<{ id: string; replays: number; attempts: number }>`
          select d.id, d.replays, count(a.*)::int as attempts
          from webhook_deliveries d left join webhook_attempts a on a.delivery_id = d.id
          where d.subscription_id = ${id}
          group by d.id, d.replays
          having count(a.*) > ${MAX_ATTEMPTS} * (1 + d.replays)`.execute(db);
        for (const row of over.rows)
          violations.push(
            `delivery ${row.id} of the ${account.plan} flooder was attempted ${row.attempts} times for ${1 + row.replays} sends (at most ${MAX_ATTEMPTS} each)`,
          );
        const most = silent.most.get(new URL(silent.urlFor(`flood-${account.plan}`)).pathname) ?? 0;
        if (most > DEFAULT_DELIVERY_FAIRNESS.perAccount)
          violations.push(
            `the silent receiver held ${most} deliveries of the ${account.plan} flooder at once (its slots: ${DEFAULT_DELIVERY_FAIRNESS.perAccount})`,
          );
      }
      for (const [status, n] of Object.entries(stats.status)) {
        if (/^5/.test(status) && status !== '503') violations.push(`${n} flooder answers with status ${status}`);
      }
      return violations;
    },
  };
}
