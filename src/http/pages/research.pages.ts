// The Research tab: start research through the service POST /api/research-runs uses, and list the account's runs.
import type { FastifyInstance } from 'fastify';
import { listAccountRuns } from '../../research/account-runs.repository.js';
import { findRun, shownStepStatus, stepsOf } from '../../research/run.repository.js';
import { runWasRefunded } from '../../research/allowance.repository.js';
import { publicFailure, publicRunAdvice, publicRunError, publicWaitingReason } from '../../domain/public-error.js';
import { dataDatesOf, findInsight } from '../../insights/insight.repository.js';
import { displayTitle, provenanceOf, type ProvenanceFacts } from '../../domain/provenance.js';
import type { RunRow } from '../../research/run.repository.js';
import { isId } from '../../domain/ids.js';
import { renderReportHtml } from '../../domain/reports/report-html.js';
import { REPORT_CSP, reportInputOf } from '../routes/api/insight-exports.js';
import { toInsightDto } from '../routes/api/insights.routes.js';
import { InvalidIdeaError } from '../../research/chain.js';
import { NotAnswerableError, ResearchAllowanceSpentError } from '../../research/research-service.js';
import { STEP_COUNT, STEP_NAMES } from '../../domain/research/step-names.js';
import { esc, hidden, notice } from './layout.js';
import type { Session } from './session.js';
import { field, date, type PageKit } from './page-kit.js';

/** A run's idea as a person reads it (labelled "simulated" or "recorded …"), and what it rests on: its provider and the last day of data. */
function runProvenance(run: RunRow, dates: Pick<ProvenanceFacts, 'data_from' | 'data_as_of'> | undefined) {
  const facts = { source: run.source, provider: run.provider, data_from: dates?.data_from ?? null, data_as_of: dates?.data_as_of ?? null };
  const { kind } = provenanceOf(facts);
  return {
    idea: displayTitle(run.idea, facts),
    source: `${run.provider} (${kind === 'live' ? 'live data' : kind})`,
    dataAsOf: facts.data_as_of ?? '—',
  };
}

export function researchPages(app: FastifyInstance, kit: PageKit): void {
  const { db, options, audit, hide, form, html, frame, page, change, redirectWith, takeShown } = kit;

  async function researchPage(session: Session, message = '', idea = '', geo = ''): Promise<string> {
    const { rows } = await listAccountRuns(db, session.row.account_id, { limit: 20 });
    const dates = await dataDatesOf(
      db,
      rows.flatMap((r) => (r.insight_id ? [r.insight_id] : [])),
    );
    const runs = rows.map((run) => {
      const shown = runProvenance(run, run.insight_id ? dates.get(run.insight_id) : undefined);
      const done = Math.min(STEP_COUNT, run.next_step - 1);
      const live = run.status === 'running' || run.status === 'waiting';
      const step = `${done} of ${STEP_COUNT}${live ? ` (now: ${STEP_NAMES[run.next_step - 1] ?? ''})` : ''}`;
      return `<tr><td>${esc(shown.idea)}</td><td>${esc(run.geo === null ? 'default' : run.geo || 'worldwide')}</td><td>${esc(shown.source)}</td><td>${esc(shown.dataAsOf)}</td><td>${esc(run.status)}${run.failed_step ? ` at step ${run.failed_step}` : ''}</td><td>${esc(step)}</td><td>${run.insight_id ? `<a href="/account/insights/${esc(run.insight_id)}/report">${esc(run.insight_id)}</a>` : '—'}</td><td><a href="/account/research/${esc(run.id)}">${esc(run.id)}</a></td><td>${esc(date(run.created_at))}</td></tr>`;
    });
    return `${message}<section aria-labelledby="submit-heading"><h2 id="submit-heading">Research an idea</h2>
<p>A run takes 40 steps and spends one of the account's research runs for today. Open a run to watch its steps: its page reloads itself until the run ends.</p>
<form method="post" action="/account/research">${hidden('csrf', session.csrf)}
<label for="idea">Idea</label><input id="idea" name="idea" type="text" maxlength="500" required value="${esc(idea)}">
<label for="geo">Market (a country code such as US, a region such as US-CA; empty: the service's default)</label><input id="geo" name="geo" type="text" maxlength="10" value="${esc(geo)}">
<div><button type="submit">Start research</button></div></form></section>
<section aria-labelledby="runs-heading"><h2 id="runs-heading">Your account's runs</h2>
<p>Open a run for its 40 steps, and its insight for the printable report. With a key, the same are at <code>/api/research-runs/{id}</code> and <code>/api/insights/{id}/report</code>.</p>
${
  runs.length === 0
    ? '<p>No runs yet.</p>'
    : `<table><caption>The 20 newest runs</caption><thead><tr><th scope="col">Idea</th><th scope="col">Market</th><th scope="col">Source</th><th scope="col">Data as of</th><th scope="col">Status</th><th scope="col">Steps done</th><th scope="col">Insight</th><th scope="col">Run</th><th scope="col">Started</th></tr></thead><tbody>${runs.join('')}</tbody></table>`
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
      if (error instanceof NotAnswerableError) return again(422, error.message);
      if (error instanceof ResearchAllowanceSpentError) {
        reply.header('retry-after', String(Math.max(1, Math.ceil((error.state.resetsAt.getTime() - Date.now()) / 1000))));
        return again(429, error.message);
      }
      throw error;
    }
  });

  const notFound = (session: Session, text: string) => ({
    title: 'Not found',
    signedIn: frame(session, 'research'),
    body: `${notice('error', text)}<p><a href="/account/research">Back to research</a></p>`,
  });
  /** Seconds between reloads of a run's page while the run is under way. */
  const REFRESH_SECONDS = 3;
  const oneLine = (text: string | null) => {
    const line = (text ?? '').split('\n', 1)[0]!.trim();
    return line.length > 200 ? `${line.slice(0, 199)}…` : line;
  };

  /**
   * Where the run stands, in a sentence, and for a failed or waiting run why and what to do: the
   * reason and advice GET /api/research-runs/{id} gives (error, waiting_reason, what_to_do).
   */
  const runState = (run: RunRow, refunded: boolean): string => {
    const ended = run.finished_at ? ` (ended ${esc(date(run.finished_at))})` : '';
    const advice = publicRunAdvice(run, refunded);
    const todo = advice ? `<p><strong>What to do:</strong> ${esc(advice)}</p>` : '';
    const reloads = `this page reloads itself every ${REFRESH_SECONDS} seconds until it ends.`;
    switch (run.status) {
      case 'queued':
      case 'running':
        return `<p role="status">This run is ${run.status}: ${reloads}</p>`;
      case 'waiting':
        return `<p role="status">This run is waiting: ${esc(publicWaitingReason(run.waiting_reason) ?? 'waiting')}. ${reloads}</p>${todo}`;
      case 'succeeded':
        return `<p>This run succeeded${ended}.</p>`;
      case 'cancelled':
        return `<p>This run was cancelled${ended}.</p>`;
      case 'failed': {
        const step = run.failed_step === null ? null : { number: run.failed_step, name: STEP_NAMES[run.failed_step - 1] ?? 'unknown' };
        return `<div role="alert"><p>This run failed${ended}: ${esc(publicRunError(run.error, step) ?? 'no reason was recorded')}.</p>${todo}</div>`;
      }
    }
  };

  // A run of the account's own, step by step, from the repository GET /api/research-runs/{id} reads.
  app.get('/account/research/:id', hide, async (request, reply) => {
    const session = await page(request, reply);
    if (!session) return reply;
    const { id } = request.params as { id: string };
    const run = isId('run', id) ? await findRun(db, id) : undefined;
    if (!run || run.account_id !== session.row.account_id)
      return html(reply.code(404), notFound(session, 'Your account has no such research run.'));
    const recorded = new Map((await stepsOf(db, run.id)).map((s) => [s.step, s]));
    const shown = runProvenance(run, run.insight_id ? (await dataDatesOf(db, [run.insight_id])).get(run.insight_id) : undefined);
    const live = run.status === 'queued' || run.status === 'running' || run.status === 'waiting';
    const rows = STEP_NAMES.map((name, i) => {
      const s = recorded.get(i + 1);
      const status = shownStepStatus(run, i + 1, s?.status);
      return `<tr><td>${i + 1}</td><td>${esc(name)}</td><td>${esc(status)}</td><td>${esc(oneLine(s?.summary ?? null) || (s?.status === 'failed' && s.error ? publicFailure(s.error) : '—'))}</td></tr>`;
    });
    const done = [...recorded.values()].filter((s) => s.status === 'done').length;
    const refunded = run.status === 'failed' && (await runWasRefunded(db, run.id));
    const body = `${runState(run, refunded)}<dl class="facts"><dt>Idea</dt><dd>${esc(shown.idea)}</dd><dt>Market</dt><dd>${esc(run.geo === null ? 'default' : run.geo || 'worldwide')}</dd>
<dt>Source</dt><dd>${esc(shown.source)}</dd><dt>Data as of</dt><dd>${esc(shown.dataAsOf)}</dd>
<dt>Steps done</dt><dd>${done} of ${STEP_COUNT}</dd><dt>Started</dt><dd>${esc(date(run.created_at))}</dd>
<dt>Insight</dt><dd>${run.insight_id ? `<a href="/account/insights/${esc(run.insight_id)}/report">report of ${esc(run.insight_id)}</a>` : '—'}</dd></dl>
<table><caption>The ${STEP_COUNT} steps of run ${esc(run.id)}</caption><thead><tr><th scope="col">Step</th><th scope="col">Name</th><th scope="col">Status</th><th scope="col">Summary</th></tr></thead><tbody>${rows.join('')}</tbody></table>
<p><a href="/account/research">Back to research</a></p>`;
    return html(reply, {
      title: `Run ${run.id}`,
      signedIn: frame(session, 'research'),
      body,
      ...(live ? { refreshSeconds: REFRESH_SECONDS } : {}),
    });
  });

  // The printable report GET /api/insights/{id}/report renders, for an insight the account may see (public, or its own).
  app.get('/account/insights/:id/report', hide, async (request, reply) => {
    const session = await page(request, reply);
    if (!session) return reply;
    const { id } = request.params as { id: string };
    const row = isId('insight', id) ? await findInsight(db, id, { accountId: session.row.account_id }) : undefined;
    if (!row) return html(reply.code(404), notFound(session, 'Your account has no such insight.'));
    const input = await reportInputOf(db, toInsightDto(row), new Date());
    // The report's own policy (its stylesheet by hash, nothing else), not the pages'.
    return reply.header('content-security-policy', REPORT_CSP).type('text/html; charset=utf-8').send(renderReportHtml(input));
  });
}
