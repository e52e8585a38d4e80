// The Webhooks tab: the account's subscriptions and their recent deliveries, read through the service /api/webhooks uses;
// a test ping per subscription and a replay per delivery, sent through that service too (so its send limits hold).
import type { FastifyInstance, FastifyReply } from 'fastify';
import {
  DisabledByOperatorError,
  SendsExhaustedError,
  SubscriptionDisabledError,
  SubscriptionInputError,
  WebhookNotFoundError,
  type WebhookService,
} from '../../webhooks/webhook-service.js';
import { esc, hidden, notice } from './layout.js';
import type { Session } from './session.js';
import { date, type PageKit } from './page-kit.js';

const notConfigured = '<p>Webhooks are not configured on this service (WEBHOOK_ENCRYPTION_KEY).</p>';

export function webhooksPage(app: FastifyInstance, kit: PageKit): void {
  const { options, audit, hide, form, html, frame, page, change, redirectWith, takeShown } = kit;

  async function webhooksBody(service: WebhookService, session: Session, message = ''): Promise<string> {
    const subscriptions = await service.list(session.row.account_id);
    const criteria = (row: (typeof subscriptions)[number]) =>
      [
        row.min_score === null ? null : `score ≥ ${row.min_score}`,
        row.categories.length ? `categories: ${row.categories.join(', ')}` : null,
        row.sources.length ? `sources: ${row.sources.join(', ')}` : null,
        row.keywords.length ? `keywords: ${row.keywords.join(', ')}` : null,
        `events: ${row.event_types.length ? row.event_types.join(', ') : 'all'}`,
      ]
        .filter((c) => c !== null)
        .join('; ');
    const button = (action: string, label: string, name: string) =>
      `<form method="post" action="${esc(action)}">${hidden('csrf', session.csrf)}<button type="submit" aria-label="${esc(`${label} ${name}`)}">${esc(label)}</button></form>`;
    const sections = await Promise.all(
      subscriptions.map(async (row) => {
        const { deliveries } = await service.show(session.row.account_id, row.id);
        const base = `/account/webhooks/${encodeURIComponent(row.id)}`;
        const table =
          deliveries.length === 0
            ? '<p>No deliveries yet.</p>'
            : `<table><caption>Recent deliveries to ${esc(row.url)}</caption><thead><tr><th scope="col">Created</th><th scope="col">Event</th><th scope="col">About</th><th scope="col">Status</th><th scope="col">Attempts</th><th scope="col">Last answer</th><th scope="col">Send again</th></tr></thead><tbody>${deliveries
                .map(
                  (d) =>
                    `<tr><td>${esc(date(d.created_at))}</td><td>${esc(d.event_type)}</td><td>${d.insight_id && d.about ? `<a href="/account/insights/${esc(d.insight_id)}/report">${esc(d.about)}</a>` : esc(d.about ?? '—')}</td><td>${esc(d.status)}</td><td>${d.attempts}</td><td>${esc(d.last_status_code ?? d.last_error ?? '—')}</td><td>${button(`${base}/deliveries/${encodeURIComponent(d.id)}/replay`, 'Replay', `delivery ${d.id}`)}</td></tr>`,
                )
                .join('')}</tbody></table>`;
        return `<section aria-labelledby="h-${esc(row.id)}"><h2 id="h-${esc(row.id)}">${esc(row.url)}</h2>
<dl class="facts"><dt>Id</dt><dd><code>${esc(row.id)}</code></dd><dt>State</dt><dd>${esc(row.state)}${row.disabled_reason ? ` (${esc(row.disabled_reason)})` : ''}</dd>
<dt>Criteria</dt><dd>${esc(criteria(row))}</dd><dt>Created</dt><dd>${esc(date(row.created_at))}</dd></dl>
${button(`${base}/test`, 'Send a test', `to ${row.url}`)}${table}</section>`;
      }),
    );
    return `${message}<p>The account's webhook subscriptions and their 20 newest deliveries. <strong>Send a test</strong> sends a signed
ping event to a subscription; <strong>Replay</strong> sends a delivery again with its original webhook-id. Both count in the
plan's replays and pings of the day, as through the API. Subscribe and change criteria through <code>/api/webhooks</code> with a
key that has the <code>webhooks:write</code> scope.</p>${subscriptions.length === 0 ? '<p>No subscriptions yet.</p>' : sections.join('')}`;
  }

  app.get('/account/webhooks', hide, async (request, reply) => {
    const session = await page(request, reply);
    if (!session) return reply;
    const signedIn = frame(session, 'webhooks');
    if (!options.webhooks) return html(reply, { title: 'Webhooks', signedIn, body: notConfigured });
    const body = await webhooksBody(options.webhooks, session, await takeShown(session, 'webhooks'));
    return html(reply, { title: 'Webhooks', signedIn, body });
  });

  /**
   * Runs a send for the page: the service's refusals (not the account's, disabled, the day's or the minute's
   * sends spent) answer the tab with what happened and nothing sent, as the API answers them (404, 409, 429).
   */
  async function send(session: Session, reply: FastifyReply, act: (service: WebhookService) => Promise<string>): Promise<FastifyReply> {
    const signedIn = frame(session, 'webhooks');
    const service = options.webhooks;
    if (!service) return html(reply.code(503), { title: 'Webhooks', signedIn, body: notConfigured });
    const again = async (status: number, text: string) =>
      html(reply.code(status), { title: 'Webhooks', signedIn, body: await webhooksBody(service, session, notice('error', text)) });
    try {
      const done = await act(service);
      return await redirectWith(reply, session, 'webhooks', '/account/webhooks', notice('ok', done));
    } catch (error) {
      if (error instanceof WebhookNotFoundError) return again(404, `Your account has no such webhook ${error.what}. Nothing was sent.`);
      if (error instanceof SendsExhaustedError) {
        reply.header('retry-after', String(Math.max(1, Math.ceil(error.retryAfterMs / 1000))));
        return again(429, `Nothing was sent. ${error.message}`);
      }
      if (error instanceof DisabledByOperatorError || error instanceof SubscriptionDisabledError)
        return again(409, `Nothing was sent. ${error.message}`);
      if (error instanceof SubscriptionInputError) return again(400, `Nothing was sent: ${error.message}`);
      throw error;
    }
  }

  app.post('/account/webhooks/:id/test', form, async (request, reply) => {
    const session = await change(request, reply);
    if (!session) return reply;
    const { id } = request.params as { id: string };
    return send(session, reply, async (service) => {
      const sent = await service.ping(session.row.account_id, id);
      audit(session, 'webhook test sent', { subscription_id: id, delivery_id: sent.deliveryId });
      return `Sent a test to subscription ${id} (delivery ${sent.deliveryId}).`;
    });
  });

  app.post('/account/webhooks/:id/deliveries/:deliveryId/replay', form, async (request, reply) => {
    const session = await change(request, reply);
    if (!session) return reply;
    const { id, deliveryId } = request.params as { id: string; deliveryId: string };
    return send(session, reply, async (service) => {
      const result = await service.replayOne(session.row.account_id, id, deliveryId);
      audit(session, 'webhook delivery replayed', { subscription_id: id, delivery_id: deliveryId, deliveries: result.replayed.length });
      return result.replayed.length > 0
        ? `Delivery ${deliveryId} is sent again (${result.remainingToday} replays and pings left today).`
        : `Delivery ${deliveryId} is still on its way: it was not sent twice.`;
    });
  });
}
