import type { Command } from 'commander';
import { requireAccount } from '../account-arguments.js';
import { CATEGORY_VALUES, SOURCE_VALUES } from '../../domain/catalog.js';
import { newId } from '../../domain/ids.js';
import { deliveryJobId, JOBS, WEBHOOK_DELIVERY_OPTIONS } from '../../queue/queues.js';
import type { Resources } from '../../runtime/resources.js';
import { withResources } from '../resources.js';
import { openQueues } from '../../runtime/queues.js';
import { SecretBox } from '../../webhooks/secret-box.js';
import { bumpSubscriptionsVersion } from '../../webhooks/subscription-index.cache.js';
import {
  createSubscription,
  findSubscription,
  listSubscriptions,
  removeSubscription,
  rotateSecret,
  setSubscriptionState,
} from '../../webhooks/subscription.repository.js';
import { controlCharacterProblem } from '../../domain/text.js';
import type { CliContext } from '../context.js';
import { forTerminal, print, printJson, table, UsageError } from '../output.js';
import { policyRefusal } from '../../webhooks/sender.js';

const EVENT_TYPES = ['insight.created', 'insight.updated', 'ping'];
const collect = (value: string, previous: string[]) => [...previous, value];

function checkUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`--url "${raw}" is not a URL (e.g. https://example.com/hooks)`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new UsageError('--url must be http:// or https://');
  if (url.username || url.password) throw new UsageError('--url must not carry credentials; verify the signature instead');
  return url.toString();
}

function checkList(name: string, values: string[], allowed: readonly string[]): string[] {
  for (const v of values) if (!allowed.includes(v)) throw new UsageError(`--${name} "${v}" is unknown (allowed: ${allowed.join(', ')})`);
  return [...new Set(values)];
}

/** The shared CLI helper, plus the secret box every webhook command needs. */
function withWebhookResources<T>(context: () => CliContext, fn: (r: Resources, box: SecretBox, ctx: CliContext) => Promise<T>): Promise<T> {
  return withResources(context, (resources, ctx) => fn(resources, SecretBox.fromConfig(ctx.config), ctx));
}

async function changed(r: Resources) {
  await bumpSubscriptionsVersion(r.redis, r.redisKeys.subscriptionsVersion);
}

async function requireSubscription(r: Resources, id: string) {
  const row = await findSubscription(r.db, id);
  if (!row) throw new UsageError(`No webhook subscription has the id "${id}" (see: insights webhooks list)`);
  return row;
}

export function registerWebhookCommands(program: Command, context: () => CliContext): void {
  const webhooks = program.command('webhooks').description('Webhook subscriptions, deliveries and replays');

  webhooks
    .command('add')
    .description('Subscribe a URL; prints the id and a whsec_ secret once')
    .requiredOption('--url <url>', 'where to POST')
    .option('--min-score <x>', 'only insights scoring at least this (0–1)')
    .option('--category <c>', 'only these categories (repeatable)', collect, [])
    .option('--source <s>', 'only these sources (repeatable)', collect, [])
    .option('--keyword <k>', 'only insights mentioning one of these (repeatable)', collect, [])
    .option('--event <type>', `only these events (repeatable): ${EVENT_TYPES.join(', ')}`, collect, [])
    .option('--account <account-id>', "the account it belongs to: deliveries are held while it is suspended (acc_…)")
    .option('--json', 'print {"id","secret"}')
    .action(async (o: { url: string; minScore?: string; category: string[]; source: string[]; keyword: string[]; event: string[]; account?: string; json?: boolean }) => {
      const url = checkUrl(o.url);
      let minScore: number | null = null;
      if (o.minScore !== undefined) {
        minScore = Number(o.minScore);
        if (!Number.isFinite(minScore) || minScore < 0 || minScore > 1) throw new UsageError(`--min-score must be a number from 0 to 1 (got "${o.minScore}")`);
      }
      const categories = checkList('category', o.category, CATEGORY_VALUES);
      const sources = checkList('source', o.source, SOURCE_VALUES);
      const eventTypes = checkList('event', o.event, EVENT_TYPES);
      const keywords = o.keyword.map((k) => k.trim()).filter(Boolean);
      for (const k of keywords) {
        const control = controlCharacterProblem(k);
        if (control) throw new UsageError(`--keyword "${k.slice(0, 40)}" ${control}`);
      }
      await withWebhookResources(context, async (r, box, ctx) => {
        // Say at once when deliveries would be refused, rather than failing every one of them later.
        let refused: string | null = null;
        try {
          refused = await policyRefusal(url, { allowPrivate: ctx.config.webhookAllowPrivate, allowedCidrs: ctx.config.webhookAllowedCidrs });
        } catch (error) {
          process.stderr.write(
            forTerminal(`warning: ${new URL(url).hostname} does not resolve now (${error instanceof Error ? error.message : String(error)}); deliveries fail until it does\n`),
          );
        }
        if (refused) throw new UsageError(`deliveries to ${url} would be refused: ${refused}`);
        const accountId = o.account === undefined ? null : (await requireAccount(r, o.account)).id;
        const created = await createSubscription(r.db, box, { url, minScore, categories, sources, keywords, eventTypes, accountId });
        await changed(r);
        if (o.json) printJson(created);
        else {
          print(`Subscribed ${created.id} → ${url}`);
          print(`Secret: ${created.secret}`);
          print('Store it now: it is shown only once. Verify deliveries with any Standard Webhooks library.');
        }
      });
    });

  webhooks
    .command('list')
    .description('All subscriptions')
    .action(() =>
      withWebhookResources(context, async (r) => {
        const rows = await listSubscriptions(r.db);
        print(
          table(
            rows.map((s) => ({
              id: s.id,
              account: s.account_id,
              state: s.state,
              url: s.url,
              min_score: s.min_score,
              categories: s.categories.join(',') || '*',
              sources: s.sources.join(',') || '*',
              keywords: s.keywords.join(',') || '*',
              events: s.event_types.join(',') || '*',
            })),
          ),
        );
      }),
    );

  webhooks
    .command('show')
    .description('Criteria, state and recent deliveries of a subscription')
    .argument('<id>')
    .action((id: string) =>
      withWebhookResources(context, async (r) => {
        const s = await requireSubscription(r, id);
        print(`${s.id}  ${s.state}${s.disabled_reason ? ` (${s.disabled_reason})` : ''}  ${s.url}`);
        print(`criteria: min_score ${s.min_score ?? 'any'}; categories ${s.categories.join(',') || 'any'}; sources ${s.sources.join(',') || 'any'}; keywords ${s.keywords.join(',') || 'any'}; events ${s.event_types.join(',') || 'any'}`);
        if (s.failing_since) print(`failing since ${s.failing_since.toISOString()}`);
        if (s.previous_secret_expires_at && s.previous_secret_expires_at > new Date()) print(`previous secret still signs until ${s.previous_secret_expires_at.toISOString()}`);
        const deliveries = await r.db.selectFrom('webhook_deliveries').selectAll().where('subscription_id', '=', id).orderBy('created_at', 'desc').limit(20).execute();
        print(table(deliveries.map((d) => ({ delivery: d.id, event: d.event_id, status: d.status, attempts: d.attempts, code: d.last_status_code, error: (d.last_error ?? '').slice(0, 60), created: d.created_at.toISOString() }))));
      }),
    );

  for (const [name, state, verb] of [
    ['disable', 'disabled', 'Disabled'],
    ['enable', 'enabled', 'Enabled'],
  ] as const) {
    webhooks
      .command(name)
      .description(`${verb.replace(/d$/, '')} a subscription`)
      .argument('<id>')
      .action((id: string) =>
        withWebhookResources(context, async (r) => {
          await requireSubscription(r, id);
          await setSubscriptionState(r.db, id, state, state === 'disabled' ? 'disabled by an operator' : null);
          await changed(r);
          print(`${verb} ${id}.`);
        }),
      );
  }

  webhooks
    .command('remove')
    .description('Delete a subscription and its delivery log')
    .argument('<id>')
    .action((id: string) =>
      withWebhookResources(context, async (r) => {
        if (!(await removeSubscription(r.db, id))) throw new UsageError(`No webhook subscription has the id "${id}"`);
        await changed(r);
        print(`Removed ${id}.`);
      }),
    );

  webhooks
    .command('rotate-secret')
    .description('A new secret now; the old one keeps signing during the overlap window')
    .argument('<id>')
    .option('--json', 'print {"id","secret"}')
    .action((id: string, o: { json?: boolean }) =>
      withWebhookResources(context, async (r, box, ctx) => {
        await requireSubscription(r, id);
        const secret = await rotateSecret(r.db, box, id, ctx.config.webhookSecretOverlapHours);
        if (o.json) printJson({ id, secret });
        else {
          print(`New secret for ${id}: ${secret}`);
          print(`Both secrets sign for ${ctx.config.webhookSecretOverlapHours} h; switch your receiver within that window.`);
        }
      }),
    );

  webhooks
    .command('test')
    .description('Send a ping event to a subscription')
    .argument('<id>')
    .action((id: string) =>
      withWebhookResources(context, async (r, _box, ctx) => {
        await requireSubscription(r, id);
        const eventId = newId('event');
        const deliveryId = newId('delivery');
        await r.db.transaction().execute(async (trx) => {
          await trx.insertInto('outbox_events').values({ id: eventId, type: 'ping', insight_id: null, payload: JSON.stringify({ subscription_id: id, message: 'ping from insights webhooks test' }), relayed_at: new Date() }).execute();
          await trx.insertInto('webhook_deliveries').values({ id: deliveryId, event_id: eventId, subscription_id: id, status: 'pending' }).execute();
        });
        const { queues, close } = openQueues(r, ctx.config);
        try {
          await queues.webhooks.add(JOBS.webhookDeliver, { deliveryId }, { ...WEBHOOK_DELIVERY_OPTIONS, jobId: deliveryJobId(deliveryId) });
        } finally {
          await close();
        }
        print(`Ping ${eventId} queued as delivery ${deliveryId}; see: insights webhooks deliveries --subscription ${id}`);
      }),
    );

  webhooks
    .command('deliveries')
    .description('The delivery log')
    .option('--subscription <id>', 'only this subscription')
    .option('--status <status>', 'pending | succeeded | failed')
    .option('--limit <n>', 'how many', '50')
    .action((o: { subscription?: string; status?: string; limit: string }) =>
      withWebhookResources(context, async (r) => {
        if (o.status && !['pending', 'succeeded', 'failed'].includes(o.status)) throw new UsageError('--status must be pending, succeeded or failed');
        let q = r.db.selectFrom('webhook_deliveries').selectAll().orderBy('created_at', 'desc').limit(Math.min(1000, Math.max(1, Number(o.limit) || 50)));
        if (o.subscription) q = q.where('subscription_id', '=', o.subscription);
        if (o.status) q = q.where('status', '=', o.status as 'pending');
        const rows = await q.execute();
        print(table(rows.map((d) => ({ delivery: d.id, subscription: d.subscription_id, event: d.event_id, status: d.status, attempts: d.attempts, code: d.last_status_code, error: (d.last_error ?? '').slice(0, 60) }))));
      }),
    );

  webhooks
    .command('replay')
    .description('Deliver again (same webhook-id): one delivery, or a subscription\'s deliveries since a time')
    .argument('[delivery_id]')
    .option('--subscription <id>', 'replay this subscription\'s deliveries …')
    .option('--since <time>', '… created since this ISO time')
    .action((deliveryId: string | undefined, o: { subscription?: string; since?: string }) =>
      withWebhookResources(context, async (r, _box, ctx) => {
        let ids: string[];
        if (deliveryId) {
          const d = await r.db.selectFrom('webhook_deliveries').select('id').where('id', '=', deliveryId).executeTakeFirst();
          if (!d) throw new UsageError(`No delivery has the id "${deliveryId}" (see: insights webhooks deliveries)`);
          ids = [d.id];
        } else {
          if (!o.subscription || !o.since) throw new UsageError('give a DELIVERY_ID, or --subscription ID --since TIME');
          const since = new Date(o.since);
          if (Number.isNaN(since.getTime())) throw new UsageError(`--since "${o.since}" is not a time (e.g. 2026-11-22T00:00:00Z)`);
          await requireSubscription(r, o.subscription);
          ids = (await r.db.selectFrom('webhook_deliveries').select('id').where('subscription_id', '=', o.subscription).where('created_at', '>=', since).execute()).map((d) => d.id);
        }
        if (ids.length === 0) {
          print('Nothing to replay.');
          return;
        }
        await r.db.updateTable('webhook_deliveries').set({ status: 'pending', finished_at: null }).where('id', 'in', ids).execute();
        const { queues, close } = openQueues(r, ctx.config);
        try {
          const stamp = Date.now();
          await queues.webhooks.addBulk(ids.map((id) => ({ name: JOBS.webhookDeliver, data: { deliveryId: id }, opts: { ...WEBHOOK_DELIVERY_OPTIONS, jobId: deliveryJobId(id, stamp) } })));
        } finally {
          await close();
        }
        print(`Replaying ${ids.length} deliver${ids.length === 1 ? 'y' : 'ies'} (same webhook-id as before).`);
      }),
    );
}
