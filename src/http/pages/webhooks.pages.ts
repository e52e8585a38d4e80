// The Webhooks tab: the account's subscriptions and their recent deliveries, SUBSCRIPTIONS_PER_PAGE at a time in one
// query (subscriptionsPageOf: a page costs the same whether the account has 1 subscription or 500); subscriptions
// created, edited and removed, a test ping per subscription and a replay per delivery, all through the service
// /api/webhooks uses (so its limits per plan, its address checks, its send limits and the operator's switch hold as for a key).
import type { FastifyInstance, FastifyReply } from 'fastify';
import { CATEGORIES, CATEGORY_VALUES, SOURCE_VALUES } from '../../domain/catalog.js';
import { WEBHOOK_EVENT_TYPES, type CriteriaInput } from '../../domain/webhooks/subscription-input.js';
import { decodeCreatedCursor, encodeCreatedCursor, InvalidCursorError, type CreatedCursor } from '../../domain/cursor.js';
import { subscriptionsPageOf, type SubscriptionRow } from '../../webhooks/subscription.repository.js';
import { SubscriptionInputError, WebhookNotFoundError, type WebhookService } from '../../webhooks/webhook-service.js';
import { Refusal } from '../../domain/refusal.js';
import { headersOfRefusal, statusOfRefusal } from '../api-guard/refusal.js';
import { html, type Html } from '../../domain/html.js';
import { hidden, notice } from './layout.js';
import type { Session } from './session.js';
import { date, field, fields, type PageKit } from './page-kit.js';

/** The criteria of a subscription's form, as the API's JSON body names them (each one given: an edit replaces all). */
function criteriaOf(body: unknown): CriteriaInput {
  const minScore = field(body, 'min_score').trim();
  const score = minScore === '' ? null : Number(minScore);
  if (score !== null && !Number.isFinite(score))
    throw new SubscriptionInputError('min_score', 'must be a number from 0 to 1, or empty for any score');
  return {
    min_score: score,
    categories: fields(body, 'categories'),
    sources: fields(body, 'sources'),
    keywords: field(body, 'keywords')
      .split(',')
      .map((k) => k.trim())
      .filter(Boolean),
    events: fields(body, 'events'),
  };
}

/** What a refusal's field is called on the form. */
const FIELD_LABELS: Record<string, string> = {
  url: 'The receiver URL',
  min_score: 'The minimum score',
  categories: 'The categories',
  sources: 'The sources',
  keywords: 'The keywords',
  events: 'The events',
};

/** What the tab says of a refusal of the webhook service: the field in the form's words, else the service's own. */
function refusalText(refusal: Refusal, nothing: 'sent' | 'changed'): string {
  if (refusal instanceof WebhookNotFoundError) return `Your account has no such webhook ${refusal.what}. Nothing was ${nothing}.`;
  if (refusal instanceof SubscriptionInputError) {
    const allowed = refusal.allowed ? ` (allowed: ${refusal.allowed.join(', ')})` : '';
    return `Nothing was ${nothing}: ${FIELD_LABELS[refusal.field] ?? refusal.field} ${refusal.reason}${allowed}.`;
  }
  return `Nothing was ${nothing}. ${refusal.message}`;
}

/** The subscription's fields as a form: empty for a new one, its own for an edit (`prefix` keeps the ids of several forms apart). */
function subscriptionFields(prefix: string, row?: SubscriptionRow): Html {
  const id = (name: string) => `${prefix}-${name}`;
  const checkbox = (name: string, value: string, label: string, checked: boolean) =>
    html`<span class="choice"><input type="checkbox" id="${id(`${name}-${value}`)}" name="${name}" value="${value}"${checked && html` checked`}><label for="${id(`${name}-${value}`)}">${label}</label></span>`;
  return html`<label for="${id('url')}">Receiver URL (https://…; the service signs every delivery)</label><input id="${id('url')}" name="url" type="text" maxlength="2048" required value="${row?.url}">
<label for="${id('min')}">Minimum overall score (0 to 1; empty: any)</label><input id="${id('min')}" name="min_score" type="text" inputmode="decimal" maxlength="5" value="${row?.min_score ?? ''}">
<label for="${id('categories')}">Categories (none chosen: all)</label><select id="${id('categories')}" name="categories" multiple size="6">${CATEGORY_VALUES.map(
    (c) => html`<option value="${c}"${row?.categories.includes(c) && html` selected`}>${CATEGORIES[c].name}</option>`,
  )}</select>
<fieldset><legend>Sources (none ticked: all)</legend>${SOURCE_VALUES.map((v) => checkbox('sources', v, v, row?.sources.includes(v) ?? false))}</fieldset>
<label for="${id('keywords')}">Keywords (comma-separated; empty: any)</label><input id="${id('keywords')}" name="keywords" type="text" maxlength="5000" value="${row?.keywords.join(', ')}">
<fieldset><legend>Events (none ticked: all)</legend>${WEBHOOK_EVENT_TYPES.map((v) => checkbox('events', v, v, row?.event_types.includes(v) ?? false))}</fieldset>`;
}

const notConfigured = html`<p>Webhooks are not configured on this service (WEBHOOK_ENCRYPTION_KEY).</p>`;

/** Subscriptions on one page of the tab, and deliveries shown under each (as GET /api/webhooks/{id} shows them). */
export const SUBSCRIPTIONS_PER_PAGE = 50;
const RECENT_DELIVERIES = 20;

export function webhooksPage(app: FastifyInstance, kit: PageKit): void {
  const { db, options, audit, hide, form, sendPage, frame, page, change, redirectWith, takeShown } = kit;

  async function webhooksBody(session: Session, message: Html | '' = '', after?: CreatedCursor): Promise<Html> {
    const { rows: subscriptions, more } = await subscriptionsPageOf(db, session.row.account_id, {
      ...(after ? { after } : {}),
      limit: SUBSCRIPTIONS_PER_PAGE,
      deliveries: RECENT_DELIVERIES,
    });
    const criteria = (row: SubscriptionRow) =>
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
      html`<form method="post" action="${action}">${hidden('csrf', session.csrf)}<button type="submit" aria-label="${`${label} ${name}`}">${label}</button></form>`;
    const operatorDisabled = (row: SubscriptionRow) => row.state === 'disabled' && row.disabled_by === 'operator';
    const sections = subscriptions.map((row) => {
      const deliveries = row.recent;
      const base = `/account/webhooks/${encodeURIComponent(row.id)}`;
      const table =
        deliveries.length === 0
          ? html`<p>No deliveries yet.</p>`
          : html`<table><caption>Recent deliveries to ${row.url}</caption><thead><tr><th scope="col">Created</th><th scope="col">Event</th><th scope="col">About</th><th scope="col">Status</th><th scope="col">Attempts</th><th scope="col">Last answer</th><th scope="col">Send again</th></tr></thead><tbody>${deliveries.map(
              (d) =>
                html`<tr><td>${date(d.created_at)}</td><td>${d.event_type}</td><td>${d.insight_id && d.about ? html`<a href="/account/insights/${d.insight_id}/report">${d.about}</a>` : (d.about ?? '—')}</td><td>${d.status}</td><td>${d.attempts}</td><td>${d.last_status_code ?? d.last_error ?? '—'}</td><td>${button(`${base}/deliveries/${encodeURIComponent(d.id)}/replay`, 'Replay', `delivery ${d.id}`)}</td></tr>`,
            )}</tbody></table>`;
      return html`<section aria-labelledby="h-${row.id}"><h2 id="h-${row.id}">${row.url}</h2>
<dl class="facts"><dt>Id</dt><dd><code>${row.id}</code></dd><dt>State</dt><dd>${row.state}${row.disabled_reason ? ` (${row.disabled_reason})` : ''}</dd>
<dt>Criteria</dt><dd>${criteria(row)}</dd><dt>Created</dt><dd>${date(row.created_at)}</dd></dl>
${button(`${base}/test`, 'Send a test', `to ${row.url}`)}${
        operatorDisabled(row)
          ? html`<p>An operator disabled this subscription: your account can no longer change, enable or remove it. To appeal, ask your operator (support), saying its id <code>${row.id}</code>.</p>`
          : html`<details><summary>Edit</summary><form method="post" action="${`${base}/edit`}">${hidden('csrf', session.csrf)}${subscriptionFields(`e-${row.id}`, row)}
<div class="choice"><input type="checkbox" id="${`e-${row.id}-enabled`}" name="enabled" value="yes"${row.state === 'enabled' && html` checked`}><label for="${`e-${row.id}-enabled`}">Enabled (deliveries are sent)</label></div>
<div><button type="submit" aria-label="${`Save the subscription to ${row.url}`}">Save</button></div></form></details>
<details><summary>Remove</summary><p>Removing deletes the subscription and its delivery log; nothing more is sent to ${row.url}.</p><form method="post" action="${`${base}/remove`}">${hidden('csrf', session.csrf)}<button type="submit" aria-label="${`Remove the subscription to ${row.url}`}">Remove this subscription</button></form></details>`
      }${table}</section>`;
    });
    const last = subscriptions.at(-1);
    const next =
      more && last
        ? html`<p><a href="${`/account/webhooks?after=${encodeCreatedCursor({ createdAt: last.created_at, id: last.id })}`}">More subscriptions</a></p>`
        : '';
    return html`${message}<p>The account's webhook subscriptions and their 20 newest deliveries. <strong>Send a test</strong> sends a signed
ping event to a subscription; <strong>Replay</strong> sends a delivery again with its original webhook-id. Both count in the
plan's replays and pings of the day, as through the API. The same subscriptions are at <code>/api/webhooks</code> with a
key that has the <code>webhooks:write</code> scope. ${SUBSCRIPTIONS_PER_PAGE} subscriptions a page, oldest first.</p>${subscriptions.length === 0 ? html`<p>${after ? 'No more subscriptions.' : 'No subscriptions yet.'}</p>` : sections}${next}
<section aria-labelledby="new-heading"><h2 id="new-heading">New subscription</h2>
<p>The plan allows a number of subscriptions per account; a receiver an operator disabled cannot be subscribed again. The signing secret is shown once, after it is made.</p>
<form method="post" action="/account/webhooks">${hidden('csrf', session.csrf)}${subscriptionFields('new')}<div><button type="submit">Subscribe</button></div></form></section>`;
  }

  app.get('/account/webhooks', hide, async (request, reply) => {
    const session = await page(request, reply);
    if (!session) return reply;
    const signedIn = frame(session, 'webhooks');
    if (!options.webhooks) return sendPage(reply, { title: 'Webhooks', signedIn, body: notConfigured });
    const raw = (request.query as Record<string, unknown>).after;
    let after: CreatedCursor | undefined;
    try {
      after = typeof raw === 'string' && raw !== '' ? decodeCreatedCursor(raw, 'subscription') : undefined;
    } catch (error) {
      if (!(error instanceof InvalidCursorError)) throw error;
      return sendPage(reply.code(400), {
        title: 'Webhooks',
        signedIn,
        body: html`${notice('error', `The link's "after" ${error.message.replace(/^cursor /, '')}.`)}<p><a href="/account/webhooks">The first page of your subscriptions</a></p>`,
      });
    }
    const body = await webhooksBody(session, await takeShown(session, 'webhooks'), after);
    return sendPage(reply, { title: 'Webhooks', signedIn, body });
  });

  /**
   * Runs a send (a ping, a replay) or a change of a subscription for the page. The service's refusals (not the
   * account's, disabled, over the plan's limit, the day's or the minute's sends spent, a field refused) answer the
   * tab with what happened and nothing sent or changed, at the status and with the headers the API answers them with.
   */
  async function run<T>(
    session: Session,
    reply: FastifyReply,
    nothing: 'sent' | 'changed',
    act: (service: WebhookService) => Promise<T>,
    done: (result: T) => Html,
  ): Promise<FastifyReply> {
    const signedIn = frame(session, 'webhooks');
    const service = options.webhooks;
    if (!service) return sendPage(reply.code(503), { title: 'Webhooks', signedIn, body: notConfigured });
    try {
      const result = await act(service);
      return await redirectWith(reply, session, 'webhooks', '/account/webhooks', done(result));
    } catch (error) {
      if (!(error instanceof Refusal)) throw error;
      reply.headers(headersOfRefusal(error));
      const body = await webhooksBody(session, notice('error', refusalText(error, nothing)));
      return sendPage(reply.code(statusOfRefusal(error)), { title: 'Webhooks', signedIn, body });
    }
  }
  const send = (session: Session, reply: FastifyReply, act: (service: WebhookService) => Promise<string>) =>
    run(session, reply, 'sent', act, (text) => notice('ok', text));
  const alter = (session: Session, reply: FastifyReply, act: (service: WebhookService) => Promise<Html>) =>
    run(session, reply, 'changed', act, (done) => done);

  const warned = (warnings: readonly string[]) => warnings.map((w) => notice('error', `Warning: ${w}`));

  app.post('/account/webhooks', form, async (request, reply) => {
    const session = await change(request, reply);
    if (!session) return reply;
    return alter(session, reply, async (service) => {
      const created = await service.create(session.row.account_id, { url: field(request.body, 'url').trim(), ...criteriaOf(request.body) });
      audit(session, 'webhook subscribed', { subscription_id: created.row.id });
      const secret = created.secret
        ? html`<p><label for="new-secret">Its signing secret, shown this once: copy it to the receiver now</label><input id="new-secret" class="secret" type="text" readonly value="${created.secret}"></p>`
        : '';
      return html`${notice('ok', `Subscribed ${created.row.url} (${created.row.id}).`)}${secret}${warned(created.warnings)}`;
    });
  });

  app.post('/account/webhooks/:id/edit', form, async (request, reply) => {
    const session = await change(request, reply);
    if (!session) return reply;
    const { id } = request.params as { id: string };
    return alter(session, reply, async (service) => {
      const updated = await service.update(session.row.account_id, id, {
        // A form without a URL (a hand-made one) leaves the receiver as it is, as a PATCH without url does.
        ...(field(request.body, 'url').trim() === '' ? {} : { url: field(request.body, 'url').trim() }),
        enabled: field(request.body, 'enabled') === 'yes',
        ...criteriaOf(request.body),
      });
      audit(session, 'webhook changed', { subscription_id: id });
      return html`${notice('ok', `Saved the subscription to ${updated.row.url} (${updated.row.state}).`)}${warned(updated.warnings)}`;
    });
  });

  app.post('/account/webhooks/:id/remove', form, async (request, reply) => {
    const session = await change(request, reply);
    if (!session) return reply;
    const { id } = request.params as { id: string };
    return alter(session, reply, async (service) => {
      const row = await service.get(session.row.account_id, id);
      await service.remove(session.row.account_id, id);
      audit(session, 'webhook removed', { subscription_id: id });
      return notice('ok', `Removed the subscription to ${row.url}: nothing more is sent to it.`);
    });
  });

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
