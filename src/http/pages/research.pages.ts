// The Research tab: start research through the service POST /api/research-runs uses, and list the account's runs.
import type { FastifyInstance } from 'fastify';
import { listAccountRuns } from '../../research/account-runs.repository.js';
import { InvalidIdeaError } from '../../research/chain.js';
import { ResearchAllowanceSpentError } from '../../research/research-service.js';
import { STEP_COUNT, STEP_NAMES } from '../../domain/research/step-names.js';
import { esc, hidden, notice } from './layout.js';
import type { Session } from './session.js';
import { field, date, type PageKit } from './page-kit.js';

export function researchPages(app: FastifyInstance, kit: PageKit): void {
  const { db, options, audit, hide, form, html, frame, page, change, redirectWith, takeShown } = kit;

  async function researchPage(session: Session, message = '', idea = '', geo = ''): Promise<string> {
    const { rows } = await listAccountRuns(db, session.row.account_id, { limit: 20 });
    const runs = rows.map((run) => {
      const done = Math.min(STEP_COUNT, run.next_step - 1);
      const live = run.status === 'running' || run.status === 'waiting';
      const step = `${done} of ${STEP_COUNT}${live ? ` (now: ${STEP_NAMES[run.next_step - 1] ?? ''})` : ''}`;
      return `<tr><td>${esc(run.idea)}</td><td>${esc(run.geo === null ? 'default' : run.geo || 'worldwide')}</td><td>${esc(run.status)}${run.failed_step ? ` at step ${run.failed_step}` : ''}</td><td>${esc(step)}</td><td>${run.insight_id ? `<code>${esc(run.insight_id)}</code>` : '—'}</td><td><code>${esc(run.id)}</code></td><td>${esc(date(run.created_at))}</td></tr>`;
    });
    return `${message}<section aria-labelledby="submit-heading"><h2 id="submit-heading">Research an idea</h2>
<p>A run takes 40 steps and spends one of the account's research runs for today. Reload this page to see it progress.</p>
<form method="post" action="/account/research">${hidden('csrf', session.csrf)}
<label for="idea">Idea</label><input id="idea" name="idea" type="text" maxlength="500" required value="${esc(idea)}">
<label for="geo">Market (a country code such as US, a region such as US-CA; empty: the service's default)</label><input id="geo" name="geo" type="text" maxlength="10" value="${esc(geo)}">
<div><button type="submit">Start research</button></div></form></section>
<section aria-labelledby="runs-heading"><h2 id="runs-heading">Your account's runs</h2>
<p>With a key, follow a run at <code>/api/research-runs/{id}</code> (or its <code>/events</code>) and read the insight's report at <code>/api/insights/{id}/report</code>.</p>
${
  runs.length === 0
    ? '<p>No runs yet.</p>'
    : `<table><caption>The 20 newest runs</caption><thead><tr><th scope="col">Idea</th><th scope="col">Market</th><th scope="col">Status</th><th scope="col">Steps done</th><th scope="col">Insight</th><th scope="col">Run</th><th scope="col">Started</th></tr></thead><tbody>${runs.join('')}</tbody></table>`
}</section>`;
  }

  const researchOff = '<p>Research on demand is not configured on this service.</p>';

  app.get('/account/research', hide, async (request, reply) => {
    const session = await page(request, reply);
    if (!session) return reply;
    const body = options.research ? await researchPage(session, await takeShown(session, 'research')) : researchOff;
    return html(reply, { title: 'Research', signedIn: frame(session, 'research'), body });
  });

  app.post('/account/research', form, async (request, reply) => {
    const session = await change(request, reply);
    if (!session) return reply;
    const signedIn = frame(session, 'research');
    if (!options.research) return html(reply.code(503), { title: 'Research', signedIn, body: researchOff });
    const idea = field(request.body, 'idea').slice(0, 1_000);
    const geo = field(request.body, 'geo').trim().slice(0, 20);
    const again = (status: number, text: string) =>
      researchPage(session, notice('error', text), idea, geo).then((body) =>
        html(reply.code(status), { title: 'Research', signedIn, body }),
      );
    try {
      const submitted = await options.research.submit(
        { accountId: session.row.account_id, plan: session.row.plan },
        { idea, ...(geo === '' ? {} : { geo }) },
      );
      if (submitted.kind === 'reused') {
        audit(session, 'research answered from a recent insight', { insight_id: submitted.insight.id });
        const text = `“${submitted.insight.idea}” was researched recently: insight ${submitted.insight.id}. No run was started and none of the allowance was spent.`;
        return redirectWith(reply, session, 'research', '/account/research', notice('ok', text));
      }
      audit(session, 'research submitted', { run_id: submitted.run.id });
      const text = submitted.madeBefore
        ? `Your account is researching this idea already: run ${submitted.run.id}.`
        : `Started run ${submitted.run.id}.`;
      return redirectWith(reply, session, 'research', '/account/research', notice('ok', text));
    } catch (error) {
      if (error instanceof InvalidIdeaError) return again(400, `This idea cannot be researched: ${error.message}`);
      if (error instanceof ResearchAllowanceSpentError) {
        reply.header('retry-after', String(Math.max(1, Math.ceil((error.state.resetsAt.getTime() - Date.now()) / 1000))));
        return again(429, error.message);
      }
      throw error;
    }
  });
}
