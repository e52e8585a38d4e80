// The Research tab: start research through the service POST /api/research-runs uses, and list the account's runs.
import type { FastifyInstance } from 'fastify';
import { listAccountRuns, listDemoRuns } from '../../research/account-runs.repository.js';
import { findRun, stepsOf } from '../../research/run.repository.js';
import { failedStepOf, runProgress } from '../../research/run-steps.js';
import { runStepViews } from '../../views/run.view.js';
import { runWasRefunded } from '../../research/allowance.repository.js';
import { dataDatesOf, findActiveInsights, type InsightRow } from '../../insights/insight.repository.js';
import { displayTitle, provenanceOf, type ProvenanceFacts } from '../../domain/provenance.js';
import type { RunRow } from '../../research/run.repository.js';
import { isId } from '../../domain/ids.js';
import { publicRunAdvice, publicRunError, publicWaitingReason } from '../../domain/public-error.js';
import { verdictOf } from '../../domain/research/verdict.js';
import { describeDiscovery } from '../../domain/trends/google/discovery.js';
import { InvalidIdeaError } from '../../research/start-run.js';
import { Refusal } from '../../domain/refusal.js';
import { headersOfRefusal, statusOfRefusal } from '../api-guard/refusal.js';
import { html, type Html } from '../../domain/html.js';
import { hidden, notice } from './layout.js';
import type { Session } from './session.js';
import { field, date, marketOf, type PageKit } from './page-kit.js';

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

/** How many of the quick start's demo runs the Research page lists (16 ideas: domain DEMO_IDEAS). */
const DEMO_SHOWN = 20;

/** A run of the quick start's demo (of no account; its insight public): any account may open it. */
const isDemoRun = (run: RunRow) => run.started_by === 'demo' && run.account_id === null;

/** A run's status as a sentence fragment reads it. */
const STATUS_WORDS: Record<string, string> = {
  queued: 'queued',
  running: 'running',
  waiting: 'waiting',
  succeeded: 'done',
  failed: 'failed',
  cancelled: 'cancelled',
};

/** Why a run is where it is, as GET /api/research-runs/{id} tells a client (its words, never the stored error). */
function statusReason(run: RunRow): string | null {
  if (run.status === 'failed') return publicRunError(run.error ?? 'failed', failedStepOf(run));
  if (run.status === 'waiting') return publicWaitingReason(run.waiting_reason);
  return null;
}

export function researchPages(app: FastifyInstance, kit: PageKit): void {
  const { db, options, audit, hide, form, sendPage, frame, page, change, redirectWith, takeShown } = kit;

  /** A run's row: its idea linked by title to its page, provider, status with its reason, and when done its score and verdict. */
  function runRow(run: RunRow, insight: InsightRow | undefined): Html {
    const shown = runProvenance(run, insight);
    const progress = runProgress(run);
    const steps = `${progress.done} of ${progress.total}${progress.current !== null && run.status !== 'queued' ? ` (now: ${progress.current})` : ''}`;
    const reason = statusReason(run);
    const result = insight
      ? (() => {
          const v = verdictOf(insight);
          return html`<a href="/account/insights/${insight.id}"><span class="verdict verdict-${v.label}">${v.label}</span> ${Math.round(insight.overall_score * 100)} of 100</a><br><span class="small">confidence ${Math.round(insight.confidence * 100)}</span>`;
        })()
      : '—';
    return html`<tr><th scope="row"><a href="/account/research/${run.id}">${shown.idea}</a></th><td>${marketOf(run.geo)}</td><td>${shown.source}</td><td>${STATUS_WORDS[run.status] ?? run.status}${reason ? html`<br><span class="small">${reason}</span>` : ''}</td><td>${steps}</td><td>${result}</td><td>${date(run.created_at)}</td></tr>`;
  }

  /** The insights of these runs, each one the account may see (its own private ones, or public ones). */
  async function insightsOf(session: Session, runs: readonly RunRow[]): Promise<Map<string, InsightRow>> {
    const ids = runs.flatMap((r) => (r.insight_id ? [r.insight_id] : []));
    const rows = ids.length ? await findActiveInsights(db, ids) : [];
    return new Map(rows.filter((r) => r.owner_account_id === null || r.owner_account_id === session.row.account_id).map((r) => [r.id, r]));
  }

  const RUNS_HEAD = html`<thead><tr><th scope="col">Idea</th><th scope="col">Market</th><th scope="col">Provider</th><th scope="col">Status</th><th scope="col">Steps done</th><th scope="col">Verdict and score</th><th scope="col">Started</th></tr></thead>`;

  async function researchPage(session: Session, message: Html | '' = '', idea = '', geo = ''): Promise<Html> {
    const { rows } = await listAccountRuns(db, session.row.account_id, { limit: 20 });
    const demo = await listDemoRuns(db, DEMO_SHOWN);
    const insights = await insightsOf(session, [...rows, ...demo]);
    const runs = rows.map((run) => runRow(run, run.insight_id ? insights.get(run.insight_id) : undefined));
    const demoRows = demo.map((run) => runRow(run, run.insight_id ? insights.get(run.insight_id) : undefined));
    return html`${message}<section aria-labelledby="submit-heading"><h2 id="submit-heading">Research an idea</h2>
<p>A run takes 40 steps and spends one of the account's research runs for today. Open a run to watch its steps: its page reloads itself until the run ends.</p>
<form method="post" action="/account/research">${hidden('csrf', session.csrf)}
<label for="idea">Idea</label><input id="idea" name="idea" type="text" maxlength="500" required value="${idea}">
<label for="geo">Market (a country code such as US, a region such as US-CA; empty: the service's default)</label><input id="geo" name="geo" type="text" maxlength="10" value="${geo}">
<div><button type="submit">Start research</button></div></form></section>
<section aria-labelledby="runs-heading"><h2 id="runs-heading">Your account's runs</h2>
<p>Open a run for its 40 steps, and its verdict for the insight's page (with the printable report). With a key, the same are at <code>/api/research-runs/{id}</code> and <code>/api/insights/{id}</code>.</p>
${
  runs.length === 0
    ? html`<p>No runs yet.</p>`
    : html`<table><caption>The 20 newest runs</caption>${RUNS_HEAD}<tbody>${runs}</tbody></table>`
}</section>${
      demoRows.length === 0
        ? ''
        : html`<section aria-labelledby="demo-heading"><h2 id="demo-heading">The quick start's demo runs</h2>
<p>The startup ideas <code>npm start</code> researched on its first start, in a simulated world (provider synthetic, never live Google data). Their insights are public: every account sees them.</p>
<table><caption>Demo runs</caption>${RUNS_HEAD}<tbody>${demoRows}</tbody></table></section>`
    }`;
  }

  const researchOff = html`<p>Research on demand is not configured on this service.</p>`;

  app.get('/account/research', hide, async (request, reply) => {
    const session = await page(request, reply);
    if (!session) return reply;
    const body = options.research ? await researchPage(session, await takeShown(session, 'research')) : researchOff;
    return sendPage(reply, { title: 'Research', signedIn: frame(session, 'research'), body });
  });

  app.post('/account/research', form, async (request, reply) => {
    const session = await change(request, reply);
    if (!session) return reply;
    const signedIn = frame(session, 'research');
    if (!options.research) return sendPage(reply.code(503), { title: 'Research', signedIn, body: researchOff });
    const idea = field(request.body, 'idea').slice(0, 1_000);
    const geo = field(request.body, 'geo').trim().slice(0, 20);
    const again = (status: number, text: string) =>
      researchPage(session, notice('error', text), idea, geo).then((body) =>
        sendPage(reply.code(status), { title: 'Research', signedIn, body }),
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
      if (!(error instanceof Refusal)) throw error;
      // At the status and with the headers (Retry-After) the API answers the refusal with.
      reply.headers(headersOfRefusal(error));
      return again(
        statusOfRefusal(error),
        error instanceof InvalidIdeaError ? `This idea cannot be researched: ${error.problem}` : error.message,
      );
    }
  });

  const notFound = (session: Session, text: string) => ({
    title: 'Not found',
    signedIn: frame(session, 'research'),
    body: html`${notice('error', text)}<p><a href="/account/research">Back to research</a></p>`,
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
  const runState = (run: RunRow, refunded: boolean): Html => {
    const ended = run.finished_at ? ` (ended ${date(run.finished_at)})` : '';
    const advice = publicRunAdvice(run, refunded);
    const todo = advice ? html`<p><strong>What to do:</strong> ${advice}</p>` : '';
    const reloads = `this page reloads itself every ${REFRESH_SECONDS} seconds until it ends.`;
    switch (run.status) {
      case 'queued':
      case 'running':
        return html`<p role="status">This run is ${run.status}: ${reloads}</p>`;
      case 'waiting':
        return html`<p role="status">This run is waiting: ${publicWaitingReason(run.waiting_reason) ?? 'waiting'}. ${reloads}</p>${todo}`;
      case 'succeeded':
        return html`<p>This run succeeded${ended}.</p>`;
      case 'cancelled':
        return html`<p>This run was cancelled${ended}.</p>`;
      case 'failed': {
        const step = failedStepOf(run);
        return html`<div role="alert"><p>This run failed${ended}: ${publicRunError(run.error, step) ?? 'no reason was recorded'}.</p>${todo}</div>`;
      }
    }
  };

  // A run of the account's own, step by step, from the repository GET /api/research-runs/{id} reads.
  app.get('/account/research/:id', hide, async (request, reply) => {
    const session = await page(request, reply);
    if (!session) return reply;
    const { id } = request.params as { id: string };
    const run = isId('run', id) ? await findRun(db, id) : undefined;
    if (!run || !(run.account_id === session.row.account_id || isDemoRun(run)))
      return sendPage(reply.code(404), notFound(session, 'Your account has no such research run.'));
    // The steps GET /api/research-runs/{id} answers (their errors in its public words).
    const steps = runStepViews(run, await stepsOf(db, run.id));
    const shown = runProvenance(run, run.insight_id ? (await dataDatesOf(db, [run.insight_id])).get(run.insight_id) : undefined);
    const live = run.status === 'queued' || run.status === 'running' || run.status === 'waiting';
    const rows = steps.map(({ step, name, status, summary, error }) => {
      return html`<tr><td>${step}</td><td>${name}</td><td>${status}</td><td>${oneLine(summary) || (status === 'failed' && error ? error : '—')}</td></tr>`;
    });
    const done = steps.filter((s) => s.status === 'done').length;
    const refunded = run.status === 'failed' && (await runWasRefunded(db, run.id));
    const body = html`${runState(run, refunded)}<dl class="facts"><dt>Idea</dt><dd>${shown.idea}</dd><dt>Market</dt><dd>${marketOf(run.geo)}</dd>
<dt>Source</dt><dd>${shown.source}</dd><dt>Data as of</dt><dd>${shown.dataAsOf}</dd>${run.discovery ? html`<dt>Discovered</dt><dd>${describeDiscovery(run.discovery)}</dd>` : ''}
<dt>Steps done</dt><dd>${done} of ${steps.length}</dd><dt>Started</dt><dd>${date(run.created_at)}</dd>
<dt>Insight</dt><dd>${run.insight_id ? html`<a href="/account/insights/${run.insight_id}">${shown.idea}</a> (<a href="/account/insights/${run.insight_id}/report">printable report</a>)` : '—'}</dd></dl>
<table><caption>The ${steps.length} steps of run ${run.id}</caption><thead><tr><th scope="col">Step</th><th scope="col">Name</th><th scope="col">Status</th><th scope="col">Summary</th></tr></thead><tbody>${rows}</tbody></table>
<p><a href="/account/research">Back to research</a></p>`;
    return sendPage(reply, {
      title: `Run ${run.id}`,
      signedIn: frame(session, 'research'),
      body,
      ...(live ? { refreshSeconds: REFRESH_SECONDS } : {}),
    });
  });
}
