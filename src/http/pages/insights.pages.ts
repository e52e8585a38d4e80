// The Insights tab (issue 49): the catalogue as GET /api/insights lists it (the same repository query, the same
// filters and sort, the same keyset cursor, the account's visibility: the public catalogue and its own private
// insights), an insight's page with its report's exports, and a comparison of 2 to 5 insights side by side
// (their scores from the insights; their interest on one scale from the API's comparison service).
import type { FastifyInstance } from 'fastify';
import {
  CATEGORIES,
  CATEGORY_VALUES,
  INSIGHT_SORTS,
  retiredCategoryReason,
  SOURCE_VALUES,
  type Category,
  type InsightSort,
  type Source,
} from '../../domain/catalog.js';
import type { InsightCursor } from '../../domain/cursor.js';
import { Refusal } from '../../domain/refusal.js';
import { headersOfRefusal, statusOfRefusal } from '../api-guard/refusal.js';
import { displayTitle, interestNoun, provenanceOf } from '../../domain/provenance.js';
import { renderInsightChart } from '../../domain/charts/insight-chart.js';
import { DIMENSION_LABELS, DIMENSIONS } from '../../domain/scoring/dimensions.js';
import { renderReportHtml } from '../../domain/reports/report-html.js';
import { renderReportMarkdown } from '../../domain/reports/report-markdown.js';
import type { InsightListRow, InsightRow } from '../../insights/insight.repository.js';
import { latestTrendPointsOf } from '../../insights/trend-point.repository.js';
import { InvalidIdeaError } from '../../research/start-run.js';
import { ComparisonUnavailableError, MAX_COMPARED, MIN_COMPARED, type Comparison } from '../../research/comparison-service.js';
import { CONTENT_TYPES, REPORT_CSP } from '../routes/api/insight-exports.js';
import { findVisibleInsight, toInsightDto, toInsightSummaryDto } from '../../views/insight.view.js';
import { decodeListCursor, listInsightPage } from '../../views/insight-list.view.js';
import { insightListCsv, reportInputOf } from '../../views/insight-report.view.js';
import { comparisonView } from '../../views/comparison.view.js';
import { html, joinHtml, type Html, type HtmlValue } from '../../domain/html.js';
import { hidden, notice } from './layout.js';
import type { Session } from './session.js';
import { date, fields, marketOf, type PageKit } from './page-kit.js';
import { multiline, sparkline } from './sparkline.js';
import { verdictOf } from '../../domain/research/verdict.js';
import { providerWords } from '../../domain/reports/insight-report.js';

/** A page of the list: as GET /api/insights's default. */
const PAGE_SIZE = 20;
/** Days of each row's sparkline (the 30 days GET /api/insights/{id}/trend-data answers by default). */
const SPARK_DAYS = 30;
const MIN_SCORE_CHOICES = ['0.3', '0.5', '0.7', '0.8'] as const;

const SORT_LABELS: Record<string, string> = {
  score: 'Best first (overall × confidence, live research first)',
  overall: 'Overall score',
  newest: 'Newest',
  oldest: 'Oldest',
};

/** The list's filters as the page's form and the API's query name them. */
interface ListFilters {
  minScore?: number;
  category?: Category;
  source?: Source;
  q?: string;
  sort: InsightSort;
  cursor?: string;
}

/** A refusal of the list's query: shown on the page as an error (400), the form kept. */
class FilterError extends Error {}

const one = (value: unknown): string | undefined => (Array.isArray(value) ? one(value[0]) : typeof value === 'string' ? value : undefined);

function parseFilters(query: unknown): ListFilters {
  const raw = (query ?? {}) as Record<string, unknown>;
  const out: ListFilters = { sort: 'score' };
  const minScore = one(raw.min_score)?.trim();
  if (minScore) {
    const n = Number(minScore);
    if (!Number.isFinite(n) || n < 0 || n > 1) throw new FilterError('The minimum score must be a number from 0 to 1.');
    out.minScore = n;
  }
  const category = one(raw.category)?.trim();
  if (category) {
    if (!(CATEGORY_VALUES as readonly string[]).includes(category))
      throw new FilterError(retiredCategoryReason(category) ?? `There is no category "${category.slice(0, 60)}".`);
    out.category = category as Category;
  }
  const source = one(raw.source)?.trim();
  if (source) {
    if (!(SOURCE_VALUES as readonly string[]).includes(source)) throw new FilterError(`There is no source "${source.slice(0, 60)}".`);
    out.source = source as Source;
  }
  const q = one(raw.q)?.trim().replace(/\s+/g, ' ');
  if (q) {
    if (q.length > 200) throw new FilterError('The search text is longer than 200 characters.');
    out.q = q;
  }
  const sort = one(raw.sort)?.trim();
  if (sort) {
    if (!(INSIGHT_SORTS as readonly string[]).includes(sort)) throw new FilterError(`There is no sort "${sort.slice(0, 60)}".`);
    out.sort = sort as InsightSort;
  }
  const cursor = one(raw.cursor);
  if (cursor) out.cursor = cursor;
  return out;
}

/** The list's address with these filters (and a cursor, or none: the first page). */
function listHref(filters: ListFilters, cursor: string | undefined, path = '/account/insights'): string {
  const params = new URLSearchParams();
  if (filters.minScore !== undefined) params.set('min_score', String(filters.minScore));
  if (filters.category) params.set('category', filters.category);
  if (filters.source) params.set('source', filters.source);
  if (filters.q) params.set('q', filters.q);
  if (filters.sort !== 'score') params.set('sort', filters.sort);
  if (cursor) params.set('cursor', cursor);
  const search = params.toString();
  return search ? `${path}?${search}` : path;
}

/** A 0–1 score as a figure out of 100, without a sign: the page adds "of 100" or a column heading says it. */
const outOf100 = (x: number) => `${Math.round(x * 100)}`;
const categoryName = (category: string) => (category in CATEGORIES ? CATEGORIES[category as Category].name : category);
const verdictBadge = (v: ReturnType<typeof verdictOf>) => html`<span class="verdict verdict-${v.label}">${v.label}</span>`;
const scoreText = (row: Pick<InsightListRow, 'overall_score' | 'confidence'>) =>
  `${outOf100(row.overall_score)} of 100 (confidence ${outOf100(row.confidence)})`;
/** Who answered its research, and what the data is: live, recorded (when) or simulated. */
function providerText(row: Pick<InsightListRow, 'provider' | 'source' | 'data_from' | 'data_as_of'>): string {
  const { kind } = provenanceOf(row);
  return kind === 'live' ? `${row.provider ?? 'none recorded'} (live data)` : providerWords(row);
}

export function insightsPages(app: FastifyInstance, kit: PageKit): void {
  const { db, options, audit, hide, form, sendPage, frame, page, change } = kit;

  const notFound = (session: Session, text = 'Your account has no such insight: it is neither public nor your account’s own.') => ({
    title: 'Not found',
    signedIn: frame(session, 'insights'),
    body: html`${notice('error', text)}<p><a href="/account/insights">Back to the insights</a></p>`,
  });

  function filterForm(filters: ListFilters): Html {
    const option = (value: string, label: string, selected: boolean) =>
      html`<option value="${value}"${selected && html` selected`}>${label}</option>`;
    return html`<form method="get" action="/account/insights" class="filters" role="search" aria-label="Filter the insights">
<div><label for="f-q">Search</label><input id="f-q" name="q" type="text" maxlength="200" value="${filters.q}"></div>
<div><label for="f-category">Category</label><select id="f-category" name="category">${option('', 'Any category', !filters.category)}${CATEGORY_VALUES.map((c) => option(c, CATEGORIES[c].name, filters.category === c))}</select></div>
<div><label for="f-source">Source</label><select id="f-source" name="source">${option('', 'Any source', !filters.source)}${SOURCE_VALUES.map((s) => option(s, s, filters.source === s))}</select></div>
<div><label for="f-min">Minimum score</label><select id="f-min" name="min_score">${option('', 'Any score', filters.minScore === undefined)}${MIN_SCORE_CHOICES.map((m) => option(m, `at least ${outOf100(Number(m))}`, filters.minScore === Number(m)))}${
      filters.minScore !== undefined && !MIN_SCORE_CHOICES.map(Number).includes(filters.minScore)
        ? option(String(filters.minScore), `at least ${outOf100(filters.minScore)}`, true)
        : ''
    }</select></div>
<div><label for="f-sort">Sort</label><select id="f-sort" name="sort">${INSIGHT_SORTS.map((s) =>
      option(s, SORT_LABELS[s] ?? `${DIMENSION_LABELS[s as (typeof DIMENSIONS)[number]]} score`, filters.sort === s),
    )}</select></div>
<div><button type="submit">Show</button></div></form>`;
  }

  /** One page of the list with these filters, as the account sees it: the page and its CSV read the same rows. */
  function listPage(filters: ListFilters, after: InsightCursor | undefined, accountId: string) {
    return listInsightPage(
      db,
      {
        limit: PAGE_SIZE,
        minScore: filters.minScore,
        source: filters.source,
        categories: filters.category ? [filters.category] : undefined,
        text: filters.q,
        sort: filters.sort,
        after,
      },
      { accountId },
    );
  }

  /** The page's position, read as the API reads a cursor; a refusal says what is wrong with it. */
  function positionOf(filters: ListFilters): InsightCursor | undefined {
    return filters.cursor !== undefined ? decodeListCursor(filters.cursor, filters.sort) : undefined;
  }
  const positionProblem = (error: Refusal) => error.facts.param?.reason ?? error.message;

  async function listBody(session: Session, filters: ListFilters): Promise<{ status: number; body: Html }> {
    let after: InsightCursor | undefined;
    let problem = '';
    try {
      after = positionOf(filters);
    } catch (error) {
      if (!(error instanceof Refusal)) throw error;
      problem = `This page's position ${positionProblem(error)}.`;
    }
    if (problem) {
      return {
        status: 400,
        body: html`${notice('error', problem)}${filterForm(filters)}<p><a href="${listHref(filters, undefined)}">The first page</a></p>`,
      };
    }
    const { rows, nextCursor } = await listPage(filters, after, session.row.account_id);
    const next = nextCursor ?? undefined;
    const series = await latestTrendPointsOf(
      db,
      rows.map((r) => r.id),
      SPARK_DAYS,
    );
    const trs = rows.map((row) => {
      const title = displayTitle(row.title, row);
      const v = verdictOf(row);
      const box = `cmp-${row.id}`;
      return html`<tr><td><input type="checkbox" id="${box}" name="id" value="${row.id}" form="compare-form"><label for="${box}" class="visually-hidden">Compare ${title}</label></td>
<th scope="row"><a href="/account/insights/${row.id}">${title}</a>${row.owner_account_id && html` <span class="tag">private</span>`}</th>
<td>${row.primary_keyword}</td><td>${verdictBadge(v)}</td><td class="num">${scoreText(row)}</td><td>${providerText(row)}</td>
<td>${row.data_as_of ?? '—'}</td><td>${marketOf(row.geo)}</td><td>${categoryName(row.category)}</td><td>${sparkline(series.get(row.id) ?? [], title)}</td></tr>`;
    });
    const paging = html`<nav aria-label="Pages of insights" class="paging">${
      filters.cursor ? html`<a href="${listHref(filters, undefined)}">First page</a>` : ''
    }${next ? html`<a href="${listHref(filters, next)}" rel="next">Next page</a>` : ''}<a href="${listHref(filters, filters.cursor, '/account/insights.csv')}">This page as CSV</a></nav>`;
    const table =
      rows.length === 0
        ? html`<p>No insight matches these filters.</p>`
        : html`<form method="get" action="/account/compare" id="compare-form"><p>Tick 2 to 5 insights, then <button type="submit">Compare side by side</button></p></form>
<div class="wide"><table class="insights"><caption>Insights ${filters.cursor ? '(a later page)' : ''} — ${rows.length} shown${next ? ', more on the next page' : ''}</caption>
<thead><tr><th scope="col">Compare</th><th scope="col">Insight</th><th scope="col">Search phrase</th><th scope="col">Verdict</th><th scope="col">Overall score</th><th scope="col">Provider</th><th scope="col">Data as of</th><th scope="col">Market</th><th scope="col">Category</th><th scope="col">Interest, ${SPARK_DAYS} days</th></tr></thead>
<tbody>${trs}</tbody></table></div>`;
    return {
      status: 200,
      body: html`<p>The public catalogue and your account's private insights, as <code>GET /api/insights</code> lists them with a key. The verdict is a rule of thumb over the scores: open an insight for its reasons and risks.</p>
${filterForm(filters)}${table}${paging}`,
    };
  }

  app.get('/account/insights', hide, async (request, reply) => {
    const session = await page(request, reply);
    if (!session) return reply;
    const signedIn = frame(session, 'insights');
    let filters: ListFilters;
    try {
      filters = parseFilters(request.query);
    } catch (error) {
      if (!(error instanceof FilterError)) throw error;
      return sendPage(reply.code(400), {
        title: 'Insights',
        signedIn,
        body: html`${notice('error', `${error.message} Choose again.`)}${filterForm({ sort: 'score' })}`,
      });
    }
    const { status, body } = await listBody(session, filters);
    return sendPage(reply.code(status), { title: 'Insights', signedIn, body });
  });

  // The page shown as CSV (the columns of GET /api/insights with Accept: text/csv).
  app.get('/account/insights.csv', hide, async (request, reply) => {
    const session = await page(request, reply);
    if (!session) return reply;
    let filters: ListFilters;
    let after: InsightCursor | undefined;
    try {
      filters = parseFilters(request.query);
      after = positionOf(filters);
    } catch (error) {
      if (!(error instanceof FilterError) && !(error instanceof Refusal)) throw error;
      const why = error instanceof Refusal ? `its position ${positionProblem(error)}` : error.message;
      return sendPage(reply.code(400), {
        title: 'Insights',
        signedIn: frame(session, 'insights'),
        body: html`${notice('error', `The list could not be read: ${why}`)}<p><a href="/account/insights">Back to the insights</a></p>`,
      });
    }
    const { data } = await listPage(filters, after, session.row.account_id);
    return reply.type(CONTENT_TYPES.csv).header('content-disposition', 'attachment; filename="insights.csv"').send(insightListCsv(data));
  });

  /** The insight, when the account may see it (public, or its own), as GET /api/insights/{id} finds it. */
  const visible = (session: Session, id: string) => findVisibleInsight(db, id, { accountId: session.row.account_id });

  app.get('/account/insights/:id', hide, async (request, reply) => {
    const session = await page(request, reply);
    if (!session) return reply;
    const row = await visible(session, (request.params as { id: string }).id);
    if (!row) return sendPage(reply.code(404), notFound(session));
    const dto = toInsightDto(row);
    const v = verdictOf(row);
    // The chart the printable report draws (its 30 days and the forecast on their scale), inline: it has no style attribute.
    const input = await reportInputOf(db, dto, new Date());
    const first = input.series[0]?.date;
    const last = input.series.at(-1)?.date;
    const chart = renderInsightChart({
      title: displayTitle(row.title, row),
      seriesLabel: `${input.series.length}-day interest`,
      ...(first && last ? { caption: `${interestNoun(provenanceOf(row).kind)} (0–100), ${first} to ${last}` } : {}),
      series: input.series,
      forecast: input.forecast && !input.forecast.withheld ? input.forecast.points : null,
      ...(input.forecastFittedOn ? { forecastFittedOn: input.forecastFittedOn } : {}),
      note: input.forecast ? (input.forecast.withheld ? `forecast withheld: ${input.forecast.reason}` : undefined) : 'no forecast yet',
    });
    const sentences = (title: string, list: ReadonlyArray<{ text: string }>) =>
      list.length === 0 ? '' : html`<h3>${title}</h3><ul>${list.slice(0, 3).map((s) => html`<li>${s.text}</li>`)}</ul>`;
    const dims = DIMENSIONS.map((d) => {
      const dim = row.dimensions[d];
      const score = dim?.score;
      return html`<tr><th scope="row">${DIMENSION_LABELS[d]}</th><td class="num">${typeof score === 'number' ? outOf100(score) : '—'}</td><td>${dim?.explanation ?? ''}</td></tr>`;
    });
    const base = `/account/insights/${encodeURIComponent(row.id)}`;
    const body = html`<section aria-labelledby="verdict-heading" class="verdict-box"><h2 id="verdict-heading">Verdict: ${verdictBadge(v)}</h2>
<p><strong>Why:</strong> ${v.reason}. <strong>Biggest risk:</strong> ${v.risk}.</p></section>
<p class="exports"><a href="${base}/report">Printable report</a> · <a href="${base}/report.md">Markdown</a> · <a href="${base}/insight.csv">CSV</a> · <a href="/account/insights">All insights</a></p>
<dl class="facts"><dt>Idea</dt><dd>${row.idea}</dd><dt>Search phrase</dt><dd>${row.primary_keyword}</dd><dt>Overall score</dt><dd>${scoreText(row)}</dd>
<dt>Provider</dt><dd>${providerText(row)}</dd><dt>Market</dt><dd>${marketOf(row.geo)}</dd><dt>Category</dt><dd>${categoryName(row.category)}</dd>
<dt>Data</dt><dd>${row.data_from ?? '—'} to ${row.data_as_of ?? '—'}</dd><dt>Visibility</dt><dd>${row.owner_account_id ? 'private to your account' : 'public'}</dd>
</dl>
${row.summary ? html`<p>${row.summary}</p>` : ''}
<section aria-labelledby="chart-heading"><h2 id="chart-heading">Search interest</h2><figure class="chart">${chart}<figcaption>${
      first && last
        ? `${interestNoun(provenanceOf(row).kind)} (0–100), ${input.series.length} days from ${first} to ${last}.`
        : 'No days of search interest yet.'
    }</figcaption></figure></section>
<section aria-labelledby="decision-heading"><h2 id="decision-heading">What the scores say</h2>${sentences('Signals', dto.decision.signals)}${sentences('Risks', dto.decision.risks)}${sentences('Validate first', dto.decision.validate_first)}</section>
<table><caption>The 8 dimensions (0–100)</caption><thead><tr><th scope="col">Dimension</th><th scope="col">Score</th><th scope="col">What it rests on</th></tr></thead><tbody>${dims}</tbody></table>
<p>The printable report holds the forecast's figures, every dimension's evidence and the research trace. Updated ${date(row.updated_at)}.</p>`;
    return sendPage(reply, { title: displayTitle(row.title, row), signedIn: frame(session, 'insights'), body });
  });

  // The printable report GET /api/insights/{id}/report renders, for an insight the account may see (public, or its own).
  app.get('/account/insights/:id/report', hide, async (request, reply) => {
    const session = await page(request, reply);
    if (!session) return reply;
    const row = await visible(session, (request.params as { id: string }).id);
    if (!row) return sendPage(reply.code(404), notFound(session));
    const input = await reportInputOf(db, toInsightDto(row), new Date());
    // The report's own policy (its stylesheet by hash, nothing else), not the pages'.
    return reply.header('content-security-policy', REPORT_CSP).type('text/html; charset=utf-8').send(renderReportHtml(input));
  });

  // The same report as Markdown (GET /api/insights/{id}/report with Accept: text/markdown).
  app.get('/account/insights/:id/report.md', hide, async (request, reply) => {
    const session = await page(request, reply);
    if (!session) return reply;
    const row = await visible(session, (request.params as { id: string }).id);
    if (!row) return sendPage(reply.code(404), notFound(session));
    const input = await reportInputOf(db, toInsightDto(row), new Date());
    return reply
      .type(CONTENT_TYPES.markdown)
      .header('content-disposition', `inline; filename="${row.id}.md"`)
      .send(renderReportMarkdown(input));
  });

  // The insight as one CSV record (the columns of the list's CSV).
  app.get('/account/insights/:id/insight.csv', hide, async (request, reply) => {
    const session = await page(request, reply);
    if (!session) return reply;
    const row = await visible(session, (request.params as { id: string }).id);
    if (!row) return sendPage(reply.code(404), notFound(session));
    return reply
      .type(CONTENT_TYPES.csv)
      .header('content-disposition', `attachment; filename="${row.id}.csv"`)
      .send(insightListCsv([toInsightSummaryDto(row)]));
  });

  /** The insights asked to be compared (`id`, 2 to 5 of them), each one the account may see; or why not. */
  async function compared(session: Session, ids: string[]): Promise<{ rows: InsightRow[] } | { status: number; text: string }> {
    const unique = [...new Set(ids.map((i) => i.trim()).filter(Boolean))];
    if (unique.length < MIN_COMPARED || unique.length > MAX_COMPARED)
      return { status: 400, text: `Tick ${MIN_COMPARED} to ${MAX_COMPARED} insights to compare (${unique.length} ticked).` };
    const rows: InsightRow[] = [];
    for (const id of unique) {
      const row = await visible(session, id);
      if (!row)
        return { status: 404, text: `Your account has no insight ${id.slice(0, 40)}: it is neither public nor your account’s own.` };
      rows.push(row);
    }
    return { rows };
  }

  async function compareBody(session: Session, rows: InsightRow[], shared: Html | '' = ''): Promise<Html> {
    const series = await latestTrendPointsOf(
      db,
      rows.map((r) => r.id),
      SPARK_DAYS,
    );
    const cells = (render: (row: InsightRow) => HtmlValue) => rows.map((r) => html`<td>${render(r)}</td>`);
    const head = rows.map((r) => html`<th scope="col"><a href="/account/insights/${r.id}">${displayTitle(r.title, r)}</a></th>`);
    const line = (label: string, render: (row: InsightRow) => HtmlValue) => html`<tr><th scope="row">${label}</th>${cells(render)}</tr>`;
    const geos = new Set(rows.map((r) => r.geo));
    const canShare = options.comparisons !== undefined && geos.size === 1;
    const sharedForm = canShare
      ? html`<form method="post" action="/account/compare">${hidden('csrf', session.csrf)}${rows.map((r) => hidden('id', r.id))}
<p>Each line above is on its own insight's scale. To put their interest on one scale, the service asks the provider for all of them in one request, as <code>POST /api/comparisons</code> does: the first time today it spends one of your account's research runs; asking again does not.</p>
<button type="submit">Compare their interest on one scale</button></form>`
      : options.comparisons === undefined
        ? html`<p>Comparisons on one scale are not configured on this service.</p>`
        : html`<p>These insights are of different markets: their interest can be compared on one scale only within one market.</p>`;
    return html`<p>${rows.length} insights side by side: their scores as researched (each insight's own date), from the same insights <code>GET /api/insights/{id}</code> answers.</p>
<div class="wide"><table class="compare"><caption>Side by side</caption><thead><tr><th scope="col">Insight</th>${head}</tr></thead><tbody>
${line('Verdict', (r) => html`${verdictBadge(verdictOf(r))}<br><span class="small">${verdictOf(r).reason}; risk: ${verdictOf(r).risk}</span>`)}
${line('Overall score', (r) => scoreText(r))}
${line('Provider', (r) => providerText(r))}
${line('Market', (r) => marketOf(r.geo))}
${line('Category', (r) => categoryName(r.category))}
${line('Data as of', (r) => r.data_as_of ?? '—')}
${joinHtml(
  DIMENSIONS.map((d) =>
    line(DIMENSION_LABELS[d], (r) => (typeof r.dimension_scores[d] === 'number' ? outOf100(r.dimension_scores[d]!) : '—')),
  ),
  '\n',
)}
${line(`Interest, ${SPARK_DAYS} days`, (r) => sparkline(series.get(r.id) ?? [], displayTitle(r.title, r)))}
</tbody></table></div>${shared}${shared ? '' : sharedForm}<p><a href="/account/insights">Back to the insights</a></p>`;
  }

  app.get('/account/compare', hide, async (request, reply) => {
    const session = await page(request, reply);
    if (!session) return reply;
    const signedIn = frame(session, 'insights');
    const ids = fields(request.query, 'id');
    const found = await compared(session, ids);
    if ('text' in found)
      return sendPage(reply.code(found.status), {
        title: 'Compare insights',
        signedIn,
        body: html`${notice('error', found.text)}<p><a href="/account/insights">Back to the insights</a></p>`,
      });
    return sendPage(reply, { title: 'Compare insights', signedIn, body: await compareBody(session, found.rows) });
  });

  /** The shared series, as POST /api/comparisons answers it: one line per idea on one 0–100 scale, with who answered. */
  function sharedSection(result: Comparison): Html {
    const provider = result.provider ?? 'unknown';
    const kind = result.provider
      ? provenanceOf({ source: '', provider: result.provider, data_from: null, data_as_of: null }).label
      : 'unknown';
    if (result.kind === 'pending')
      return html`${notice('ok', `Asked ${provider} for the shared series; it has not answered yet. Ask again in about ${Math.max(1, Math.ceil(result.retryAfterMs / 1000))} seconds: it is not charged again.`)}`;
    const points = result.series.points;
    const lines = result.ideas.map((c, i) => ({
      name: c.idea,
      points: points.map((p) => ({ date: p.date, value: p.values[i] ?? 0 })),
    }));
    // The mean and peak POST /api/comparisons answers.
    const stats = comparisonView(result, result.geo).data.ideas.map((c, i) => {
      return html`<tr><th scope="row"><span class="key series-${i}" aria-hidden="true"></span> ${c.idea}</th><td>${c.phrase}</td><td class="num">${c.mean ?? '—'}</td><td class="num">${c.peak ?? '—'}</td></tr>`;
    });
    const span = `${points[0]?.date ?? '–'} to ${points.at(-1)?.date ?? '–'}`;
    return html`<section aria-labelledby="shared-heading"><h2 id="shared-heading">Interest on one scale</h2>
<p>From one request to <strong>${provider}</strong> (${kind}), market ${marketOf(result.geo)}, ${span}, one point a week; 100 is the highest of any of them.</p>
${multiline(lines, `Interest in ${result.ideas.map((c) => c.idea).join(', ')} on one scale, ${span} (${provider})`)}
<table><caption>Mean and peak on the shared scale</caption><thead><tr><th scope="col">Idea</th><th scope="col">Search phrase</th><th scope="col">Mean</th><th scope="col">Peak</th></tr></thead><tbody>${stats}</tbody></table></section>`;
  }

  // The shared series spends the allowance the first time a day (as the API's comparisons do): a form, with the session's token.
  // Answered in place, not redirected: asking again (a reload) is the API's poll, and is not charged again.
  app.post('/account/compare', form, async (request, reply) => {
    const session = await change(request, reply);
    if (!session) return reply;
    const signedIn = frame(session, 'insights');
    const found = await compared(session, fields(request.body, 'id'));
    if ('text' in found)
      return sendPage(reply.code(found.status), {
        title: 'Compare insights',
        signedIn,
        body: html`${notice('error', found.text)}<p><a href="/account/insights">Back to the insights</a></p>`,
      });
    const comparisons = options.comparisons;
    const again = async (status: number, text: string) =>
      sendPage(reply.code(status), {
        title: 'Compare insights',
        signedIn,
        body: await compareBody(session, found.rows, notice('error', text)),
      });
    if (!comparisons) return again(503, 'Comparisons on one scale are not configured on this service.');
    const geos = new Set(found.rows.map((r) => r.geo));
    if (geos.size !== 1)
      return again(400, 'These insights are of different markets: their interest can be compared on one scale only within one market.');
    try {
      const result = await comparisons.service.compare(
        { accountId: session.row.account_id, plan: session.row.plan },
        found.rows.map((r) => r.idea),
        found.rows[0]!.geo,
        comparisons.defaultGeo,
      );
      audit(session, 'insights compared', { insight_ids: found.rows.map((r) => r.id), status: result.kind });
      return sendPage(reply.code(result.kind === 'pending' ? 202 : 200), {
        title: 'Compare insights',
        signedIn,
        body: await compareBody(session, found.rows, sharedSection(result)),
      });
    } catch (error) {
      if (!(error instanceof Refusal)) throw error;
      if (error instanceof ComparisonUnavailableError)
        request.log.warn({ err: error.cause }, 'comparison page: the search-data provider refused the series');
      // At the status and with the headers (Retry-After) the API answers the refusal with.
      reply.headers(headersOfRefusal(error));
      const text = error instanceof InvalidIdeaError ? `These insights cannot be compared on one scale: ${error.problem}.` : error.message;
      return again(statusOfRefusal(error), text);
    }
  });
}
