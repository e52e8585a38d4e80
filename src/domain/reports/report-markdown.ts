// An insight's report as Markdown (GFM): the same sections as the HTML page,
// the chart as a sparkline (Markdown has no picture of its own: the SVG is one
// request away). Every text from the insight is escaped (markdown.ts), so an
// idea cannot add a link, an image or HTML. It has no HTML of its own either:
// anchors (<a id="ev/…"></a>) showed as raw tags wherever Markdown is read as
// text or rendered without HTML (founder review, issue 47), so a citation is
// its words, which name the dimension and evidence row they point to; the
// HTML page links them.
import { textSparkline } from '../charts/insight-chart.js';
import { escapeMarkdown as md, markdownTable } from './markdown.js';
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

function factsTable(facts: Fact[]): string {
  return markdownTable(
    ['', ''],
    facts.map((f) => [`${md(f.label)}`, md(f.value)]),
  );
}

function table(header: string[], rows: string[][], align?: Array<'l' | 'r'>): string {
  return markdownTable(
    header.map(md),
    rows.map((r) => r.map(md)),
    align,
  );
}

/** A citation as the words naming its place; one the report does not show says so. */
const citation = (c: Citation) => (c.anchor ? md(c.words) : `${md(c.words)} (not shown in this report)`);
const citations = (cs: Citation[]) => (cs.length ? ` (${cs.map(citation).join(', ')})` : '');
const capitalise = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

function genericBlock(block: GenericBlock): string[] {
  return [
    ...(block.facts.length ? [factsTable(block.facts)] : []),
    ...block.tables.flatMap((t) => [...(t.title ? [`### ${md(t.title)}`] : []), table(t.header, t.rows)]),
  ];
}

export function renderReportMarkdown(input: InsightReportInput): string {
  const r = prepareReport(input);
  const out: string[] = [];

  // The same order as the HTML page: the verdict first, then what it rests on.
  const v = r.verdict;
  out.push(
    `# ${md(r.title)}`,
    `**Idea:** ${md(r.idea)}`,
    `**Verdict: ${md(v.title)}** (overall ${md(v.overall)}, confidence ${md(v.confidence)}). Strongest reason: ${md(capitalise(v.reason))}. Biggest risk: ${md(v.risk)}.${citations(v.citations)}`,
  );
  if (r.provenance.notice) out.push(`> ${md(r.provenance.notice)}`);
  if (r.partial) {
    out.push(`> **Partial.** ${md(PARTIAL_NOTICE)}`);
  }
  out.push(factsTable(r.facts));

  if (r.decision) {
    out.push('## Signals, risks and what to validate first');
    for (const group of r.decision) {
      out.push(`### ${md(group.title)}`, group.items.map((i) => `- ${md(i.text)}${citations(i.citations)}`).join('\n'));
    }
  }

  const values = input.series.map((p) => p.value);
  out.push(
    '## Search interest',
    r.chart.points
      ? `\`${textSparkline(values)}\` ${md(r.chart.caption ?? '')}: lowest ${r.chart.min}, highest ${r.chart.max}, latest ${r.chart.latest}. Source: ${md(r.chart.source)}.`
      : 'No days of search interest yet.',
    `The chart with the forecast: \`GET /api/insights/${r.id}/chart.svg\`.`,
  );

  out.push(
    '## The 8 dimensions',
    markdownTable(
      ['Dimension', 'Score', 'Marks', 'What it asks'],
      r.dimensions.map((d) => [md(d.title), md(d.score), d.marks.map(md).join('; '), md(d.question)]),
      ['l', 'r', 'l', 'l'],
    ),
  );

  out.push('## Evidence, dimension by dimension');
  for (const d of r.dimensions) {
    out.push(`### ${md(d.title)} (${md(d.score)})`, md(d.explanation));
    out.push(
      d.evidence.length
        ? markdownTable(
            ['Evidence', 'Value'],
            d.evidence.map((e) => [`${md(e.key)}`, md(e.value)]),
          )
        : 'No evidence recorded.',
    );
    if (d.name === 'momentum' && r.trendReason) out.push(`**Why this trend class:** ${md(r.trendReason.text)}`);
  }
  if (r.trendReason && !r.dimensions.some((d) => d.name === 'momentum')) out.push(`**Why this trend class:** ${md(r.trendReason.text)}`);
  if (r.searchVolume) {
    const v = r.searchVolume;
    out.push(
      `### Search volume, ${md(v.location)}`,
      markdownTable(
        ['Phrase', 'Monthly searches', 'Cost per click (USD)', 'Competition'],
        v.rows.map((row) => [`${md(row.cells[0] ?? '')}`, ...row.cells.slice(1).map(md)]),
        ['l', 'r', 'r', 'l'],
      ),
    );
  }

  out.push('## Forecast');
  const f = r.forecast;
  if (f.kind === 'served') {
    out.push(
      `The next 7 days (model ${md(f.model)}, made ${md(f.generatedAt)}): ${md(f.scale)}`,
      table(['Date', 'Forecast', '80 % interval', '95 % interval'], f.rows, ['l', 'r', 'r', 'r']),
      '**Backtest**',
      factsTable(f.backtest),
    );
  } else {
    out.push(f.kind === 'withheld' ? `Withheld (${md(f.generatedAt)}): ${md(f.reason)}` : md(NO_FORECAST));
  }

  if (r.outlook) out.push(`## Outlook, 3 to 12 months`, ...genericBlock(r.outlook));

  if (r.primaryChoice) {
    const c = r.primaryChoice;
    out.push(`## How the search phrase was chosen`, `Researched: **${md(c.primary)}**`);
    if (c.reason) out.push(md(c.reason));
    if (c.rows.length) {
      out.push(
        markdownTable(
          c.header.map(md),
          c.rows.map((row) => row.cells.map((cell, i) => (i === 0 && row.primary ? `**${md(cell)}**` : md(cell)))),
          c.header.map((_, i) => (c.numeric.includes(i) ? 'r' : 'l')),
        ),
      );
    }
    if (c.measured.length) out.push(factsTable(c.measured));
  }

  out.push('## Research trace');
  if (r.trace) {
    out.push(factsTable(r.trace.run));
    if (r.trace.error) out.push(`**Failed:** ${md(r.trace.error)}`);
    out.push(table(['#', 'Step', 'Status', 'Summary'], r.trace.steps, ['r', 'l', 'l', 'l']));
  } else {
    out.push(md(NO_RUN));
  }

  out.push(
    `---`,
    factsTable(r.record),
    `Made ${md(r.generatedAt)} from \`GET /api/insights/${r.id}/report\`. Scores and their methods: \`GET /api/methodology\`.`,
  );
  return `${out.join('\n\n')}\n`;
}
