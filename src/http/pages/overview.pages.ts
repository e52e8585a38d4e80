// The Overview tab: the plan, today's requests against the quota and the research allowance, 30 days of requests.
import type { FastifyInstance } from 'fastify';
import { accountUsage } from '../../accounts/account-usage.js';
import { fillDays, renderUsageChart } from '../../domain/charts/usage-chart.js';
import { PLANS } from '../../domain/quota.js';
import { utcDay } from '../../domain/utc-day.js';
import { allowanceState } from '../../domain/research/allowance.js';
import { researchRunsRefunded, researchRunsSpent } from '../../research/allowance.repository.js';
import { html } from '../../domain/html.js';
import { date, type PageKit } from './page-kit.js';

export function overviewPage(app: FastifyInstance, kit: PageKit): void {
  const { db, options, allowance, hide, sendPage, frame, page } = kit;

  app.get('/account', hide, async (request, reply) => {
    const session = await page(request, reply);
    if (!session) return reply;
    const { account_id: accountId, plan } = session.row;
    const now = new Date();
    const [days, today, spent, refunded] = await Promise.all([
      accountUsage(db, options.quota, accountId, 30, now),
      options.quota.today(accountId, now),
      researchRunsSpent(db, accountId, now),
      researchRunsRefunded(db, accountId, now),
    ]);
    const limit = PLANS[plan].dailyLimit;
    const used = today?.total ?? 0;
    const research = allowanceState(allowance[plan], spent, now, refunded);
    const series = fillDays(days, utcDay(now), 30);
    const rows = [...series].reverse().filter((d) => d.requests > 0);
    const body = html`<section aria-labelledby="today-heading"><h2 id="today-heading">Today (${utcDay(now)}, UTC)</h2>
<dl class="facts"><dt>Plan</dt><dd>${plan}</dd>
<dt>Requests</dt><dd>${used}${limit === null ? ' (unlimited plan)' : ` of ${limit} (${Math.max(0, limit - used)} left)`}</dd>
<dt>Research runs</dt><dd>${research.used} of ${research.limit} (${research.remaining} left)${research.refunded > 0 ? `; ${research.refunded} given back (the provider could not be reached or refused ${research.refunded === 1 ? 'it' : 'them'})` : ''}</dd>
<dt>Resets</dt><dd>${date(research.resetsAt)}</dd>
<dt>Account status</dt><dd>${session.row.status}</dd></dl></section>
<section aria-labelledby="usage-heading"><h2 id="usage-heading">Requests, last 30 days</h2>
${renderUsageChart(series, limit)}
${
  rows.length === 0
    ? html`<p>No requests in the last 30 days.</p>`
    : html`<table><caption>Days with requests</caption><thead><tr><th scope="col">Day (UTC)</th><th scope="col">Requests</th></tr></thead><tbody>${rows.map((d) => html`<tr><td>${d.day}</td><td>${d.requests}</td></tr>`)}</tbody></table>`
}</section>`;
    return sendPage(reply, { title: 'Overview', signedIn: frame(session, 'overview'), body });
  });
}
