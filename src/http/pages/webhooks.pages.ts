// The Webhooks tab: the account's subscriptions and their recent deliveries, read through the service /api/webhooks uses.
import type { FastifyInstance } from 'fastify';
import { esc } from './layout.js';
import { date, type PageKit } from './page-kit.js';

export function webhooksPage(app: FastifyInstance, kit: PageKit): void {
  const { options, hide, html, frame, page } = kit;

  app.get('/account/webhooks', hide, async (request, reply) => {
    const session = await page(request, reply);
    if (!session) return reply;
    const signedIn = frame(session, 'webhooks');
    if (!options.webhooks) {
      return html(reply, {
        title: 'Webhooks',
        signedIn,
        body: '<p>Webhooks are not configured on this service (WEBHOOK_ENCRYPTION_KEY).</p>',
      });
    }
    const service = options.webhooks;
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
    const sections = await Promise.all(
      subscriptions.map(async (row) => {
        const { deliveries } = await service.show(session.row.account_id, row.id);
        const table =
          deliveries.length === 0
            ? '<p>No deliveries yet.</p>'
            : `<table><caption>Recent deliveries to ${esc(row.url)}</caption><thead><tr><th scope="col">Created</th><th scope="col">Event</th><th scope="col">Status</th><th scope="col">Attempts</th><th scope="col">Last answer</th></tr></thead><tbody>${deliveries
                .map(
                  (d) =>
                    `<tr><td>${esc(date(d.created_at))}</td><td>${esc(d.event_type)}</td><td>${esc(d.status)}</td><td>${d.attempts}</td><td>${esc(d.last_status_code ?? d.last_error ?? '—')}</td></tr>`,
                )
                .join('')}</tbody></table>`;
        return `<section aria-labelledby="h-${esc(row.id)}"><h2 id="h-${esc(row.id)}">${esc(row.url)}</h2>
<dl class="facts"><dt>Id</dt><dd><code>${esc(row.id)}</code></dd><dt>State</dt><dd>${esc(row.state)}${row.disabled_reason ? ` (${esc(row.disabled_reason)})` : ''}</dd>
<dt>Criteria</dt><dd>${esc(criteria(row))}</dd><dt>Created</dt><dd>${esc(date(row.created_at))}</dd></dl>${table}</section>`;
      }),
    );
    const body = `<p>The account's webhook subscriptions and their 20 newest deliveries. Subscribe, change, test and replay through
<code>/api/webhooks</code> with a key that has the <code>webhooks:write</code> scope.</p>${
      subscriptions.length === 0 ? '<p>No subscriptions yet.</p>' : sections.join('')
    }`;
    return html(reply, { title: 'Webhooks', signedIn, body });
  });
}
