// An insight's report as one printable HTML page: self-contained (the chart is
// inline SVG, the styles one <style> element), no script, nothing loaded from
// anywhere. The stylesheet is a constant, so the route can allow exactly it
// in its Content-Security-Policy by its hash; no element carries a style
// attribute (a hash does not cover those). Every text is escaped: the markup is built
// with the html tag (domain/html.ts), in the document frame the account pages use too.
import { forecastOnSeries, renderInsightChart } from '../charts/insight-chart.js';
import { html, htmlDocument, joinHtml, unsafeRawHtml, type Html } from '../html.js';
import {
  NO_FORECAST,
  NO_RUN,
  PARTIAL_NOTICE,
  prepareReport,
  type Citation,
  type Fact,
  type GenericBlock,
  type InsightReportInput,
} from './insight-report.js';

export const REPORT_STYLESHEET = `
:root { color-scheme: light; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #111827; background: #fff; margin: 0 auto; max-width: 980px; padding: 24px; }
header .kicker { color: #6b7280; text-transform: uppercase; letter-spacing: .06em; font-size: 11px; margin: 0; }
h1 { font-size: 26px; line-height: 1.2; margin: 4px 0 8px; overflow-wrap: anywhere; }
h2 { font-size: 19px; margin: 28px 0 8px; padding-bottom: 4px; border-bottom: 1px solid #e5e7eb; }
h3 { font-size: 15px; margin: 18px 0 6px; }
p, li, dd, td, th, figcaption, summary { overflow-wrap: break-word; }
#evidence td, #research-trace td, #verdict p { overflow-wrap: anywhere; }
p { margin: 6px 0; }
.idea { font-size: 16px; color: #374151; }
#verdict { border: 1px solid #d1d5db; border-left-width: 6px; border-radius: 4px; padding: 10px 14px; margin: 12px 0; }
#verdict.promising { border-color: #16a34a; background: #f0fdf4; }
#verdict.mixed { border-color: #d97706; background: #fffbeb; }
#verdict.weak { border-color: #dc2626; background: #fef2f2; }
#verdict.unproven { border-color: #6b7280; background: #f9fafb; }
#verdict .verdict-line { font-size: 18px; margin: 0 0 4px; }
#verdict .verdict-scores { color: #4b5563; font-size: 13px; }
dl.facts { display: grid; grid-template-columns: repeat(auto-fill, minmax(170px, 1fr)); gap: 6px 16px; margin: 12px 0; }
dl.facts dt { color: #6b7280; font-size: 11px; text-transform: uppercase; letter-spacing: .04em; }
dl.facts dd { margin: 0; font-weight: 600; }
.notice { border-left: 4px solid #f59e0b; background: #fffbeb; padding: 8px 12px; margin: 12px 0; }
table { border-collapse: collapse; width: 100%; margin: 8px 0 12px; font-size: 13px; }
th, td { border-bottom: 1px solid #e5e7eb; padding: 4px 8px; text-align: left; vertical-align: top; }
thead th { background: #f3f4f6; font-weight: 600; }
tbody th { font-weight: 500; color: #374151; width: 34%; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
#dimensions td:first-child, #research-trace td:nth-child(2) { white-space: nowrap; }
tr.primary td { font-weight: 600; }
.mark { display: inline-block; border: 1px solid #fcd34d; border-radius: 3px; padding: 0 4px; margin: 0 4px 2px 0; font-size: 11px; color: #92400e; background: #fffbeb; white-space: nowrap; }
.status-failed { color: #b91c1c; font-weight: 600; }
.status-pending { color: #6b7280; }
ul.decision { padding-left: 20px; }
ul.decision li { margin: 4px 0; }
.cites { font-size: 12px; color: #6b7280; }
a.cite { color: #1d4ed8; }
span.cite { color: #6b7280; font-style: italic; }
:target { background: #fef9c3; }
details { border-bottom: 1px solid #e5e7eb; padding: 4px 0; }
details > summary { cursor: pointer; font-weight: 600; padding: 4px 0; }
details > summary .score { font-weight: 400; color: #4b5563; margin-left: 6px; }
figure { margin: 8px 0; }
figure svg { display: block; max-width: 100%; height: auto; }
figcaption { color: #6b7280; font-size: 12px; }
footer { margin-top: 32px; color: #6b7280; font-size: 12px; }
@page { size: A4 portrait; margin: 14mm; }
@media print {
  body { max-width: none; padding: 0; font-size: 11px; }
  h2 { break-after: avoid; }
  tr, figure, .notice, dl.facts, #verdict { break-inside: avoid; }
  thead { display: table-header-group; }
  a { color: inherit; text-decoration: none; }
  :target { background: none; }
  #research-trace { break-before: page; }
  thead th, .mark, .notice, #verdict { print-color-adjust: exact; -webkit-print-color-adjust: exact; }
}
`;

const attr = (id: string): Html => html` id="${id}"`;
const capitalise = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

function factsList(facts: Fact[]): Html {
  return html`<dl class="facts">${facts.map((f) => html`<div${f.anchor ? attr(f.anchor) : ''}><dt>${f.label}</dt><dd>${f.value}</dd></div>`)}</dl>`;
}

function table(header: string[], rows: string[][], options: { numeric?: number[]; rowAttrs?: Html[] } = {}): Html {
  const cell = (tag: 'th' | 'td', text: string, i: number) =>
    tag === 'th'
      ? html`<th${options.numeric?.includes(i) && html` class="num"`}>${text}</th>`
      : html`<td${options.numeric?.includes(i) && html` class="num"`}>${text}</td>`;
  return html`<table><thead><tr>${header.map((h, i) => cell('th', h, i))}</tr></thead><tbody>${rows.map(
    (r, n) => html`<tr${options.rowAttrs?.[n] ?? ''}>${r.map((c, i) => cell('td', c, i))}</tr>`,
  )}</tbody></table>`;
}

/** A sentence's evidence as words that link to it: "(demand score, demand: ratio)"; the pointer is the link's target and its title. */
function citations(cs: Citation[]): Html | '' {
  if (cs.length === 0) return '';
  const one = (c: Citation) =>
    c.anchor
      ? html`<a class="cite" href="#${c.anchor}" title="${c.pointer}">${c.words}</a>`
      : html`<span class="cite" title="${c.pointer}: not shown in this report">${c.words}</span>`;
  return html` <span class="cites">(${joinHtml(cs.map(one), ', ')})</span>`;
}

function genericBlock(block: GenericBlock): Html {
  return html`${block.facts.length ? factsList(block.facts) : ''}${block.tables.map(
    (t) => html`${t.title ? html`<h3>${t.title}</h3>` : ''}${table(t.header, t.rows)}`,
  )}`;
}

export function renderReportHtml(input: InsightReportInput): string {
  const r = prepareReport(input);
  const { insight } = input;
  const parts: Array<Html | ''> = [];
  const v = r.verdict;

  parts.push(
    html`<header id="top"><p class="kicker">Startup Insights · insight report</p><h1${attr(r.anchors.title)}>${r.title}</h1>`,
    html`<p class="idea"${attr(r.anchors.idea)}>${r.idea}</p>`,
    html`<section id="verdict" class="${v.label}" aria-label="Verdict"><p class="verdict-line"><strong>${v.title}</strong> <span class="verdict-scores"><span${attr(v.anchors.overall)}>overall ${v.overall}</span>, <span${attr(v.anchors.confidence)}>confidence ${v.confidence}</span></span></p>`,
    html`<p>Strongest reason: ${capitalise(v.reason)}. Biggest risk: ${v.risk}.${citations(v.citations)}</p></section>`,
    r.provenance.notice ? html`<p class="notice" id="provenance-notice">${r.provenance.notice}</p>` : '',
    r.partial ? html`<p class="notice"><strong>Partial.</strong> ${PARTIAL_NOTICE}</p>` : '',
    factsList(r.facts),
    html`</header>`,
  );

  if (r.decision) {
    parts.push(
      html`<section id="decision"><h2>Signals, risks and what to validate first</h2>${r.decision.map(
        (g) => html`<h3>${g.title}</h3><ul class="decision">${g.items.map((i) => html`<li>${i.text}${citations(i.citations)}</li>`)}</ul>`,
      )}</section>`,
    );
  }

  const svg = renderInsightChart({
    seriesLabel: r.chart.unit === 'weeks' ? `${r.chart.points} weeks of interest` : `${r.chart.points}-day interest`,
    title: insight.title,
    caption: r.chart.caption ?? undefined,
    series: input.series,
    forecast: input.forecast && !input.forecast.withheld ? input.forecast.points : null,
    ...(input.forecastFittedOn ? { forecastFittedOn: input.forecastFittedOn } : {}),
    note: input.forecast ? (input.forecast.withheld ? `forecast withheld: ${input.forecast.reason}` : undefined) : 'no forecast yet',
  });
  // The caption names the forecast only when the chart drew it (it is left out when its scale is unknown).
  const drawn =
    input.forecast && !input.forecast.withheld
      ? forecastOnSeries(input.series, input.forecast.points, input.forecastFittedOn, undefined)
      : null;
  const caption = r.chart.caption
    ? `${r.chart.caption}${drawn?.forecast ? ', and the 7-day forecast with its 80 % and 95 % intervals' : drawn?.note ? ` (${drawn.note})` : ''}, on one 0–100 scale. Source: ${r.chart.source}.`
    : 'No days of search interest yet.';
  parts.push(html`<section id="chart"><h2>Search interest</h2><figure>${svg}<figcaption>${caption}</figcaption></figure></section>`);

  parts.push(
    html`<section id="dimensions"><h2>The 8 dimensions</h2><table><thead><tr><th>Dimension</th><th class="num">Score</th><th>What it asks</th></tr></thead><tbody>${r.dimensions.map(
      (d) =>
        html`<tr><td><a href="#${d.anchor}">${d.title}</a></td><td class="num">${d.score}</td><td>${d.marks.map(
          (m) => html`<span class="mark">${m}</span>`,
        )}${d.question}</td></tr>`,
    )}</tbody></table></section>`,
  );

  // Each dimension's evidence folded away: a link to a place inside opens it (the browser unfolds the target of a fragment).
  const evidence = r.dimensions.map(
    (d) =>
      html`<details${attr(d.anchor)}><summary>${d.title}<span class="score">${d.score}</span></summary><p>${d.explanation}</p>${
        d.evidence.length
          ? html`<table><tbody>${d.evidence.map((e) => html`<tr${attr(e.anchor)}><th>${e.key}</th><td>${e.value}</td></tr>`)}</tbody></table>`
          : html`<p>No evidence recorded.</p>`
      }${d.name === 'momentum' && r.trendReason ? html`<p${attr(r.trendReason.anchor)}>Why this trend class: ${r.trendReason.text}</p>` : ''}</details>`,
  );
  if (r.trendReason && !r.dimensions.some((d) => d.name === 'momentum'))
    evidence.push(html`<p${attr(r.trendReason.anchor)}>Why this trend class: ${r.trendReason.text}</p>`);
  if (r.searchVolume) {
    const sv = r.searchVolume;
    evidence.push(
      html`<details${attr(sv.anchor)}><summary>Search volume, ${sv.location}</summary>${table(
        ['Phrase', 'Monthly searches', 'Cost per click (USD)', 'Competition'],
        sv.rows.map((row) => row.cells),
        { numeric: [1, 2], rowAttrs: sv.rows.map((row) => attr(row.anchor)) },
      )}</details>`,
    );
  }
  parts.push(html`<section id="evidence"><h2>Evidence, dimension by dimension</h2>${evidence}</section>`);

  const f = r.forecast;
  parts.push(
    html`<section id="forecast"><h2>Forecast</h2>${
      f.kind === 'served'
        ? html`<p>The next 7 days (model ${f.model}, made ${f.generatedAt}): ${f.scale}</p>${table(['Date', 'Forecast', '80 % interval', '95 % interval'], f.rows, { numeric: [1, 2, 3] })}<h3>Backtest</h3>${factsList(f.backtest)}`
        : f.kind === 'withheld'
          ? html`<p>Withheld (${f.generatedAt}): ${f.reason}</p>`
          : html`<p>${NO_FORECAST}</p>`
    }</section>`,
  );

  if (r.outlook)
    parts.push(html`<section id="outlook"><h2${attr(r.outlook.anchor)}>Outlook, 3 to 12 months</h2>${genericBlock(r.outlook)}</section>`);

  if (r.primaryChoice) {
    const c = r.primaryChoice;
    parts.push(
      html`<section id="primary-choice"><h2${attr(c.anchor)}>How the search phrase was chosen</h2><p>Researched: <strong>${c.primary}</strong></p>${
        c.reason ? html`<p>${c.reason}</p>` : ''
      }${
        c.rows.length
          ? table(
              c.header,
              c.rows.map((row) => row.cells),
              { numeric: c.numeric, rowAttrs: c.rows.map((row) => (row.primary ? html` class="primary"` : html``)) },
            )
          : ''
      }${c.measured.length ? factsList(c.measured) : ''}</section>`,
    );
  }

  const trace = r.trace;
  parts.push(
    html`<section id="research-trace"><h2>Research trace</h2>${
      trace
        ? html`${factsList(trace.run)}${trace.error ? html`<p class="status-failed">${trace.error}</p>` : ''}<details><summary>The ${trace.steps.length} steps</summary>${table(
            ['#', 'Step', 'Status', 'Summary'],
            trace.steps,
            {
              numeric: [0],
              rowAttrs: trace.steps.map((s) => (s[2] === 'failed' || s[2] === 'pending' ? html` class="status-${s[2]}"` : html``)),
            },
          )}</details>`
        : html`<p>${NO_RUN}</p>`
    }</section>`,
  );

  parts.push(
    html`<footer>${factsList(r.record)}Made ${r.generatedAt} from GET /api/insights/${r.id}/report. Scores and their methods: GET /api/methodology.</footer>`,
  );

  return String(
    htmlDocument({
      title: `${r.title} · insight report`,
      // Raw: a constant of this file, allowed by its hash in the report's Content-Security-Policy.
      head: html`<style>${unsafeRawHtml(REPORT_STYLESHEET)}</style>\n`,
      body: html`<main>\n${joinHtml(parts.filter(Boolean), '\n')}\n</main>`,
    }),
  );
}
