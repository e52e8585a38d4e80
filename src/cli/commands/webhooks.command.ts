import type { Command } from 'commander';
import { requireAccount } from '../account-arguments.js';
import { WEBHOOK_EVENT_TYPES } from '../../domain/webhooks/subscription-input.js';
import type { Resources } from '../../runtime/resources.js';
import { withServices } from '../resources.js';
import { SubscriptionInputError, WebhookNotFoundError, type WebhookService } from '../../webhooks/webhook-service.js';
import type { CliContext } from '../context.js';
import { describeCommand } from '../command-index.js';
import { forTerminal, print, printJson, table, UsageError } from '../output.js';

const collect = (value: string, previous: string[]) => [...previous, value];

/** The service's field names, as this command's flags spell them. */
const FLAGS: Record<string, string> = {
  url: '--url',
  min_score: '--min-score',
  categories: '--category',
  sources: '--source',
  keywords: '--keyword',
  events: '--event',
  since: '--since',
  until: '--until',
  subscription: '--subscription',
  cursor: '--cursor',
};

/** The service, as an operator (scope null) sees it; its refusals become usage errors (exit 2). */
function withService<T>(context: () => CliContext, fn: (service: WebhookService, r: Resources, ctx: CliContext) => Promise<T>): Promise<T> {
  return withServices(context, async (services, ctx) => {
    // Read first: a key that cannot be read or made fails the command with its reason.
    void services.secretBox;
    const service = services.webhooks!;
    const r = services.resources;
    try {
      return await fn(service, r, ctx);
    } catch (error) {
      if (error instanceof SubscriptionInputError) {
        throw new UsageError(
          `${FLAGS[error.field] ?? error.field} ${error.reason}${error.allowed ? ` (allowed: ${error.allowed.join(', ')})` : ''}`,
        );
      }
      if (error instanceof WebhookNotFoundError) {
        // The refusal's sentence without its full stop, then where to look.
        throw new UsageError(
          `${error.message.replace(/\.$/, '')} (see: insights webhooks ${error.what === 'delivery' ? 'deliveries' : 'list'})`,
        );
      }
      throw error;
    }
  });
}

function warn(warnings: readonly string[]): void {
  for (const w of warnings) process.stderr.write(forTerminal(`warning: ${w}\n`));
}

export function registerWebhookCommands(program: Command, context: () => CliContext): void {
  const webhooks = program.command('webhooks').description(describeCommand('webhooks'));

  webhooks
    .command('add')
    .description('Subscribe a URL; prints the id and a whsec_ secret once')
    .requiredOption('--url <url>', 'where to POST')
    .option('--min-score <x>', 'only insights scoring at least this (0–1)')
    .option('--category <c>', 'only these categories (repeatable)', collect, [])
    .option('--source <s>', 'only these sources (repeatable)', collect, [])
    .option('--keyword <k>', 'only insights mentioning one of these (repeatable)', collect, [])
    .option('--event <type>', `only these events (repeatable): ${WEBHOOK_EVENT_TYPES.join(', ')}`, collect, [])
    .option(
      '--account <account-id>',
      "the account it belongs to: deliveries are held while it is suspended (acc_…); the plan's subscription limit does not bind operators",
    )
    .option('--json', 'print {"id","secret"}')
    .action(
      (o: {
        url: string;
        minScore?: string;
        category: string[];
        source: string[];
        keyword: string[];
        event: string[];
        account?: string;
        json?: boolean;
      }) =>
        withService(context, async (service, r) => {
          const owner = o.account === undefined ? null : (await requireAccount(r, o.account)).id;
          const created = await service.create(
            null,
            {
              url: o.url,
              min_score: o.minScore === undefined ? null : Number(o.minScore),
              categories: o.category,
              sources: o.source,
              keywords: o.keyword,
              events: o.event,
            },
            owner,
          );
          warn(created.warnings);
          if (o.json) printJson({ id: created.row.id, secret: created.secret });
          else {
            print(`Subscribed ${created.row.id} → ${created.row.url}`);
            print(`Secret: ${created.secret}`);
            print('Store it now: it is shown only once. Verify deliveries with any Standard Webhooks library.');
          }
        }),
    );

  webhooks
    .command('list')
    .description('All subscriptions')
    .action(() =>
      withService(context, async (service) => {
        const rows = await service.list(null);
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
      withService(context, async (service) => {
        const { row: s, deliveries } = await service.show(null, id);
        const by = s.state === 'disabled' ? ` by ${s.disabled_by ?? 'system'}` : '';
        print(`${s.id}  ${s.state}${by}${s.disabled_reason ? ` (${s.disabled_reason})` : ''}  ${s.url}`);
        print(
          `criteria: min_score ${s.min_score ?? 'any'}; categories ${s.categories.join(',') || 'any'}; sources ${s.sources.join(',') || 'any'}; keywords ${s.keywords.join(',') || 'any'}; events ${s.event_types.join(',') || 'any'}`,
        );
        if (s.failing_since) print(`failing since ${s.failing_since.toISOString()}`);
        if (s.previous_secret_expires_at && s.previous_secret_expires_at > new Date())
          print(`previous secret still signs until ${s.previous_secret_expires_at.toISOString()}`);
        print(
          table(
            deliveries.map((d) => ({
              delivery: d.id,
              event: d.event_id,
              status: d.status,
              attempts: d.attempts,
              code: d.last_status_code,
              error: (d.last_error ?? '').slice(0, 60),
              created: d.created_at.toISOString(),
            })),
          ),
        );
      }),
    );

  webhooks
    .command('disable')
    .description(
      "Disable a subscription (the operator's switch: its account can no longer change, enable, delete, ping or replay it, nor subscribe its receiver again)",
    )
    .argument('<id>')
    .option('--reason <text>', 'why, shown to the account in the subscription and in its 409 answers (default: "disabled by an operator")')
    .action((id: string, options: { reason?: string }) =>
      withService(context, async (service) => {
        if (options.reason !== undefined && (options.reason.trim() === '' || options.reason.length > 200))
          throw new UsageError('--reason must be 1 to 200 characters');
        await service.setEnabled(null, id, false, options.reason);
        print(`Disabled ${id}.`);
      }),
    );
  webhooks
    .command('enable')
    .description('Enable a subscription')
    .argument('<id>')
    .action((id: string) =>
      withService(context, async (service) => {
        await service.setEnabled(null, id, true);
        print(`Enabled ${id}.`);
      }),
    );

  webhooks
    .command('remove')
    .description('Delete a subscription and its delivery log')
    .argument('<id>')
    .action((id: string) =>
      withService(context, async (service) => {
        await service.remove(null, id);
        print(`Removed ${id}.`);
      }),
    );

  webhooks
    .command('rotate-secret')
    .description('A new secret now; the old one keeps signing during the overlap window')
    .argument('<id>')
    .option('--json', 'print {"id","secret"}')
    .action((id: string, o: { json?: boolean }) =>
      withService(context, async (service, _r, ctx) => {
        const { secret } = await service.rotate(null, id);
        if (o.json) printJson({ id, secret });
        else {
          print(`New secret for ${id}: ${secret}`);
          print(`Both secrets sign for ${ctx.config.webhooks.secretOverlapHours} h; switch your receiver within that window.`);
        }
      }),
    );

  webhooks
    .command('test')
    .description('Send a ping event to a subscription')
    .argument('<id>')
    .action((id: string) =>
      withService(context, async (service) => {
        const { eventId, deliveryId } = await service.ping(null, id);
        print(`Ping ${eventId} queued as delivery ${deliveryId}; see: insights webhooks deliveries --subscription ${id}`);
      }),
    );

  webhooks
    .command('deliveries')
    .description('The delivery log, newest first')
    .option('--subscription <id>', 'only this subscription')
    .option('--status <status>', 'pending | succeeded | failed')
    .option('--limit <n>', 'how many (up to 1000)', '50')
    .action((o: { subscription?: string; status?: string; limit: string }) =>
      withService(context, async (service) => {
        if (o.status && !['pending', 'succeeded', 'failed'].includes(o.status))
          throw new UsageError('--status must be pending, succeeded or failed');
        const status = o.status as 'pending' | 'succeeded' | 'failed' | undefined;
        const wanted = Math.min(1000, Math.max(1, Number(o.limit) || 50));
        const rows = [];
        let cursor: string | undefined;
        do {
          const page = await service.deliveries(null, o.subscription, {
            limit: wanted - rows.length,
            ...(status ? { status } : {}),
            ...(cursor ? { cursor } : {}),
          });
          rows.push(...page.rows);
          cursor = page.nextCursor ?? undefined;
        } while (cursor && rows.length < wanted);
        print(
          table(
            rows.map((d) => ({
              delivery: d.id,
              subscription: d.subscription_id,
              event: d.event_id,
              status: d.status,
              attempts: d.attempts,
              code: d.last_status_code,
              error: (d.last_error ?? '').slice(0, 60),
            })),
          ),
        );
      }),
    );

  webhooks
    .command('replay')
    .description("Deliver again (same webhook-id): one delivery, or a subscription's deliveries made since a time (at most 1000)")
    .argument('[delivery_id]')
    .option('--subscription <id>', "replay this subscription's deliveries …")
    .option('--since <time>', '… made since this ISO time')
    .option('--until <time>', '… and before this one (default: now)')
    .action((deliveryId: string | undefined, o: { subscription?: string; since?: string; until?: string }) =>
      withService(context, async (service) => {
        let replayed: string[];
        let truncated = false;
        if (deliveryId) replayed = (await service.replayOne(null, null, deliveryId)).replayed;
        else {
          if (!o.subscription || !o.since) throw new UsageError('give a DELIVERY_ID, or --subscription ID --since TIME');
          ({ replayed, truncated } = await service.replayRange(null, o.subscription, o.since, o.until));
        }
        if (replayed.length === 0) {
          print('Nothing to replay.');
          return;
        }
        print(`Replaying ${replayed.length} deliver${replayed.length === 1 ? 'y' : 'ies'} (same webhook-id as before).`);
        if (truncated) print('More deliveries were made in that window: replay again with --since set after the last one replayed.');
      }),
    );
}
