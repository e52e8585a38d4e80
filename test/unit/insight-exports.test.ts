// The exports' pure parts: CSV as RFC 4180 writes it and as a spreadsheet may
// open it safely, Accept negotiation, Markdown that an idea cannot turn into a
// link or HTML (checked by rendering it with a real GFM renderer), and the
// report's sections, citations and escaping with every optional field of the
// insight present or absent.
import { createHash } from 'node:crypto';
import { marked } from 'marked';
import { describe, expect, it } from 'vitest';
import { csvField, toCsv } from '../../src/domain/reports/csv.js';
import { anchorId, pointerTokens, resolvePointer } from '../../src/domain/reports/json-pointer.js';
import { escapeMarkdown } from '../../src/domain/reports/markdown.js';
import {
  NO_FORECAST,
  NO_RUN,
  providerWords,
  type InsightReportInput,
  type ReportInsight,
} from '../../src/domain/reports/insight-report.js';
import { provenanceOf } from '../../src/domain/provenance.js';
import { REPORT_STYLESHEET, renderReportHtml } from '../../src/domain/reports/report-html.js';
import { renderReportMarkdown } from '../../src/domain/reports/report-markdown.js';
import { verdictOf } from '../../src/domain/research/verdict.js';
import { DIMENSIONS, type Dimension, type DimensionScore } from '../../src/domain/scoring/dimensions.js';
import { decisionSummary } from '../../src/domain/research/decision-summary.js';
import { STEP_NAMES } from '../../src/domain/research/step-names.js';
import { preferredMediaType } from '../../src/http/negotiate.js';
import { REPORT_CSP } from '../../src/http/routes/api/insight-exports.js';
import { parseCsv } from '../support/csv.js';

describe('CSV', () => {
  it('quotes a field holding a comma, a quote, CR or LF, doubling its quotes, and ends each record with CRLF', () => {
    const text = toCsv(['a', 'b', 'c', 'd'], [['x, y', 'say "hi"', 'one\ntwo', 'back\r\nthere']]);
    expect(text).toBe('a,b,c,d\r\n"x, y","say ""hi""","one\ntwo","back\r\nthere"\r\n');
    expect(parseCsv(text)).toEqual([
      ['a', 'b', 'c', 'd'],
      ['x, y', 'say "hi"', 'one\ntwo', 'back\r\nthere'],
    ]);
  });

  it.each([
    ['=HYPERLINK("http://evil.example","x")', `"'=HYPERLINK(""http://evil.example"",""x"")"`],
    ['+1 555 0100', "'+1 555 0100"],
    ['-2+3', "'-2+3"],
    ['@SUM(A1:A9)', "'@SUM(A1:A9)"],
    ['\tcmd', "'\tcmd"],
    ['\rcmd', `"'\rcmd"`],
  ])('defuses %j, which a spreadsheet would read as a formula', (cell, written) => {
    expect(csvField(cell)).toBe(written);
    expect(parseCsv(`${csvField(cell)}\r\n`)[0]![0]).toBe(`'${cell}`);
  });

  it('leaves other text, numbers (negative ones too), booleans and nulls as data', () => {
    expect(['meal kits = fun', 'a-b', 'x@y', "'quoted", 0.25, -0.5, 12, true, null, undefined, Number.NaN].map(csvField)).toEqual([
      'meal kits = fun',
      'a-b',
      'x@y',
      "'quoted",
      '0.25',
      '-0.5',
      '12',
      'true',
      '',
      '',
      '',
    ]);
  });
});

describe('Accept negotiation', () => {
  const LIST = ['application/json', 'text/csv'];
  it.each([
    [undefined, 'application/json'],
    ['', 'application/json'],
    ['*/*', 'application/json'],
    ['text/csv', 'text/csv'],
    ['TEXT/CSV; charset=utf-8', 'text/csv'],
    ['text/*', 'text/csv'],
    ['application/json;q=0.4, text/csv;q=0.5', 'text/csv'],
    ['application/json;q=0, */*', 'text/csv'],
    ['text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', 'application/json'],
    ['application/xml', null],
    ['text/csv;q=0, application/json;q=0', null],
    ['text/csv;q=0, */*;q=0.1', 'application/json'],
    ['garbage, text/csv', 'text/csv'],
    ['text/csv;q=2', 'application/json'],
  ])('Accept %j chooses %j', (accept, chosen) => {
    expect(preferredMediaType(accept, LIST)).toBe(chosen);
  });
});

describe('Markdown escaping', () => {
  const hostile = [
    '<script>alert("x")</script>',
    '[click](https://evil.example) and ![img](https://evil.example/x.png)',
    'https://evil.example/path and www.evil.example and mail me@evil.example',
    '<https://evil.example> <img src=x onerror=alert(1)>',
    '*bold* _em_ ~~gone~~ `code` $x^2$ | cell | {#id}',
    '# heading\n\n- list\n1. one\n> quote\n<div>block</div>',
    '&lt;script&gt; &amp; &#x3C;',
    '[ref]: https://evil.example',
  ];

  it.each(hostile)('renders %j as that text and nothing else', (text) => {
    const html = marked.parse(`**Idea:** ${escapeMarkdown(text)}`, { async: false, gfm: true });
    expect(html).not.toMatch(/<(a|img|script|div|em|strong(?!>Idea)|del|code|h\d|ul|ol|li|blockquote)\b/);
    expect(html.match(/<strong>/g)).toHaveLength(1);
    // The text survives, as text: only its whitespace is folded (an inline place holds one line).
    const shown = html
      .replace(/<[^>]+>/g, '')
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&amp;/g, '&')
      .trim();
    expect(shown).toBe(`Idea: ${text.replace(/\s*\n+\s*/g, ' ')}`);
  });

  it.each(['1. one', '2) two', '- dash', '+ plus', '---', '= =', '# h', '> q', '    indented code', '* star'])(
    'keeps the text of a list item %j one paragraph',
    (text) => {
      const html = marked.parse(`- ${escapeMarkdown(text)}`, { async: false, gfm: true });
      expect(html.replace(/\s+/g, '')).toMatch(/^<ul><li>[^<]*<\/li><\/ul>$/);
    },
  );

  it('leaves what cannot be markup as it is: numbers, words joined by underscores or dashes', () => {
    for (const text of ['0.62', '-2+3', 'monthly_searches', 'AI-powered meal kits', '40 % (up from 35)', 'it\'s "fine"; really?']) {
      expect(escapeMarkdown(text)).toBe(text);
    }
  });

  it('keeps a table cell one cell', () => {
    const html = marked.parse(`| a | b |\n|---|---|\n| ${escapeMarkdown('x | y')} | z |`, { async: false, gfm: true });
    expect(html.match(/<td>/g)).toHaveLength(2);
  });
});

describe('JSON Pointers and anchors', () => {
  const doc = { dimensions: { demand: { evidence: { 'a/b': 1, 'x~y': 2, n: null } } }, list: [{ v: 3 }] };
  it('resolves RFC 6901 pointers and names nothing for the rest', () => {
    expect(resolvePointer(doc, '/dimensions/demand/evidence/a~1b')).toBe(1);
    expect(resolvePointer(doc, '/dimensions/demand/evidence/x~0y')).toBe(2);
    expect(resolvePointer(doc, '/dimensions/demand/evidence/n')).toBeNull();
    expect(resolvePointer(doc, '/list/0/v')).toBe(3);
    for (const p of ['/list/01', '/list/x', '/nope', 'dimensions', '/dimensions/demand/evidence/a~2', '/toString']) {
      expect(resolvePointer(doc, p), p).toBeUndefined();
    }
  });
  it('gives distinct pointers distinct ids of safe characters', () => {
    const ids = ['/a/b', '/a~1b', '/a.2f.b', '/a b', '/a/"><script>', '/é'].map((p) => anchorId(pointerTokens(p)!));
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^ev(\/[A-Za-z0-9_.-]*)+$/);
  });
});

const HOSTILE_IDEA = `Meal kits <script>alert("x")</script> & 'vegan' [click](https://evil.example)`;

function insight(extra: Partial<ReportInsight> = {}): ReportInsight {
  return {
    id: 'ins_0123456789abcdefghjk',
    title: HOSTILE_IDEA,
    idea: HOSTILE_IDEA,
    primary_keyword: 'meal kits',
    category: 'food-drink',
    source: 'research',
    overall_score: 0.62,
    confidence: 0.8,
    dimensions: Object.fromEntries(
      DIMENSIONS.map((d, i) => [
        d,
        {
          score: d === 'whitespace' ? null : i / 10,
          evidence: { monthly_searches: 1200, note: `<b>${d}</b>`, unavailable: d === 'reach' ? 'not recorded' : null },
          explanation: `${d} because "it is" <i>so</i>`,
          ...(d === 'pain' ? { experimental: true, strength: 0.4 } : {}),
        },
      ]),
    ),
    trend_class: 'rising',
    trend_class_hit_rate: 0.71,
    trend_class_evidence: { rule: 'r', reason: 'grew 40 % <fast>', claim: 'c' },
    summary: `Summary of ${HOSTILE_IDEA}`,
    geo: 'US',
    visibility: 'private',
    created_at: '2026-11-20T10:00:00.000Z',
    updated_at: '2026-11-21T10:00:00.000Z',
    ...extra,
  };
}

const FULL: Partial<ReportInsight> = {
  partial: true,
  decision: {
    signals: [{ text: 'People search for it <a lot>', evidence: ['/dimensions/demand/evidence/monthly_searches', '/dimensions/momentum'] }],
    risks: [
      { text: 'Crowded "space"', evidence: ['/dimensions/whitespace/explanation', '/nowhere/at/all'] },
      { text: 42 },
      'a bare string',
    ],
    validate_first: [{ text: 'Ask 10 parents', evidence: ['/outlook/horizons/0/value'] }],
    why_now: [{ text: 'Rising', evidence: ['/trend_class'] }],
  },
  outlook: {
    withheld: false,
    model: 'damped_seasonal',
    horizons: [
      { months: 3, withheld: false, value: 41.2, lower_80: 35, upper_80: 47, backtest: { mae: 3.1, origins: 12 } },
      { months: 12, withheld: true, reason: 'lost to seasonal naive <here>' },
    ],
  },
  primary_choice: {
    primary: 'meal kits',
    reason: 'most searched of the phrases that name the product',
    candidates: [
      { phrase: 'meal kits', coverage: 0.8, mean: 41.5, score: 1.2 },
      { phrase: '<vegan> meal', coverage: 0.5, mean: 3, score: 0.6 },
    ],
  },
};

/** 2026-10-01 and the days after it. */
const day = (n: number) => new Date(Date.UTC(2026, 9, 1 + n)).toISOString().slice(0, 10);

function input(extra: Partial<ReportInsight> = {}, withRun = true): InsightReportInput {
  return {
    insight: insight(extra),
    series: Array.from({ length: 30 }, (_, i) => ({ date: day(i), value: 20 + i })),
    forecast: {
      withheld: false,
      model: 'ets',
      generated_at: '2026-11-21T10:00:00.000Z',
      points: Array.from({ length: 7 }, (_, i) => ({
        date: day(30 + i),
        value: 50,
        lower_80: 45,
        upper_80: 55,
        lower_95: 40,
        upper_95: 60,
      })),
      backtest: { mase: 0.8, mase_seasonal_naive: 1, coverage_80: 0.79, coverage_95: 0.94 },
    },
    run: withRun
      ? {
          id: 'run_0123456789abcdefghjk',
          status: 'succeeded',
          provider: 'synthetic',
          created_at: '2026-11-20T10:00:00.000Z',
          finished_at: '2026-11-20T10:01:00.000Z',
          error: null,
          steps: STEP_NAMES.map((name, i) => ({ step: i + 1, name, status: 'done', summary: `step ${i + 1} read <${name}>`, error: null })),
        }
      : null,
    generatedAt: '2026-11-22T00:00:00.000Z',
  };
}

const ids = (html: string) => new Set([...html.matchAll(/ id="([^"]+)"/g)].map((m) => m[1]));
const hrefs = (html: string) => [...html.matchAll(/ href="([^"]+)"/g)].map((m) => m[1]!);

describe('the HTML report', () => {
  it('escapes every text of the insight: no script, no markup of its own', () => {
    const html = renderReportHtml(input(FULL));
    expect(html).not.toMatch(/<script|<b>|<i>|<a lot>|<fast>|<vegan>|<here>/i);
    expect(html).toContain('Meal kits &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;vegan&#39;');
    expect(html).not.toMatch(/ style=/);
    expect(html).not.toMatch(/ (src|href)="(?!#)/);
  });

  it('has its sections, the chart, the 8 dimensions with their marks, the 40 steps', () => {
    const html = renderReportHtml(input(FULL));
    for (const id of ['decision', 'chart', 'dimensions', 'evidence', 'forecast', 'outlook', 'primary-choice', 'research-trace']) {
      expect(html, id).toContain(`<section id="${id}">`);
    }
    // The verdict first, before the facts and the decision; the evidence folded, one <details> a dimension.
    expect(html).toMatch(/<section id="verdict" class="(promising|mixed|weak|unproven)"/);
    expect(html.indexOf('id="verdict"')).toBeLessThan(html.indexOf('<dl class="facts">'));
    expect(html.indexOf('<dl class="facts">')).toBeLessThan(html.indexOf('<section id="decision">'));
    expect(html.match(/<details id="ev\/dimensions\/[a-z]+"><summary>/g)).toHaveLength(8);
    expect(html).not.toContain('<section id="summary">');
    // The table asks each dimension's question; its explanation is said once, with its evidence.
    expect(html).toContain('<th>What it asks</th>');
    for (const d of DIMENSIONS) expect(html.split(`${d} because &quot;it is&quot; &lt;i&gt;so&lt;/i&gt;`).length - 1, d).toBe(1);
    expect(html).toMatch(/<figure><svg [^>]*viewBox="0 0 860 420"/);
    expect(html).toContain('<span class="mark">experimental</span><span class="mark">thin evidence: strength 0.40</span>');
    expect(html).toContain('<span class="mark">unscored</span>');
    expect(html.match(/<tr><td>\d+<\/td><td>[a-z0-9_]+<\/td><td>done<\/td>/g) ?? []).toHaveLength(0);
    expect((html.match(/<td class="num">\d+<\/td><td>[a-z0-9_]+<\/td><td>done<\/td>/g) ?? []).length).toBe(40);
    expect(html).toContain('<td>withheld: lost to seasonal naive &lt;here&gt;</td>');
    expect(html).toContain('<td>3 months</td><td>–</td><td>41.2</td><td>–</td><td>35–47</td>');
    expect(html).toContain('<tr class="primary"><td>meal kits</td>');
    expect(html).toContain('<strong>Partial.</strong>');
  });

  it('links each cited sentence to the place in the report its pointer names, and leaves unknown pointers unlinked', () => {
    const html = renderReportHtml(input(FULL));
    const present = ids(html);
    for (const href of hrefs(html)) expect(present.has(href.slice(1)), href).toBe(true);
    // Words a reader reads; the pointer is the link's target and its title.
    expect(html).toContain(
      'href="#ev/dimensions/demand/evidence/monthly_searches" title="/dimensions/demand/evidence/monthly_searches">demand: monthly searches</a>',
    );
    // explanation is shown with its dimension: the citation goes there.
    expect(html).toContain('href="#ev/dimensions/whitespace" title="/dimensions/whitespace/explanation">whitespace explanation</a>');
    expect(html).toContain('href="#ev/outlook" title="/outlook/horizons/0/value">outlook horizon 1 value</a>');
    expect(html).toContain('<span class="cite" title="/nowhere/at/all: not shown in this report">nowhere at all</span>');
    // No visible text is a pointer: every ">/…<" is gone from the page's text.
    expect(html.replace(/<[^>]*>/g, ' ')).not.toMatch(/(^|[\s(,])\/(dimensions|outlook|trend_class|nowhere)\//);
    expect(html).toContain('<li>a bare string</li>');
    expect(html).not.toMatch(/<li>42/);
  });

  it('links every pointer of the decision the insight itself makes (decision-summary.ts) to a place it shows', () => {
    for (const scores of [
      [0.9, 0.1],
      [0.7, 0.2],
      [null, 0.8],
    ] as const) {
      const base = insight({
        dimensions: Object.fromEntries(
          DIMENSIONS.map((d, i) => [d, { score: scores[i % 2]!, evidence: { fad: i === 2, years: 5 }, explanation: `${d} explained` }]),
        ),
      });
      const decision = decisionSummary({ ...base, dimensions: base.dimensions as Record<Dimension, DimensionScore> });
      const cited = [decision.signals, decision.risks, decision.validate_first, decision.why_now].flat().flatMap((s) => s.evidence);
      expect(cited.length).toBeGreaterThan(0);
      const html = renderReportHtml(input({ ...base, decision }));
      expect(html).not.toContain('not shown in this report');
      const present = ids(html);
      for (const href of hrefs(html)) expect(present.has(href.slice(1)), href).toBe(true);
      // The decision's citations and the verdict's, each a link.
      expect((html.match(/<a class="cite"/g) ?? []).length).toBe(cited.length + verdictOf(base).evidence.length);
    }
  });

  it('writes no control character or bidirectional override that older data may hold', () => {
    const hostile = 'Kits \u202eevil\u202c \u001b[2J \u0007 \ud800 end';
    const raw = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]|[\ud800-\udbff](?![\udc00-\udfff])/u;
    for (const render of [renderReportHtml, renderReportMarkdown]) {
      const out = render(input({ title: hostile, idea: hostile, summary: hostile }));
      expect(out).not.toMatch(raw);
      expect(out).toContain('\ufffd');
    }
  });

  it('shows an outlook of another shape field by field, a list of records as a table', () => {
    const html = renderReportHtml(
      input({ outlook: { note: 'new shape <x>', points: [{ month: '2027-01', mean: 40.25 }], nested: { a: 1 } } }),
    );
    expect(html).toContain('<dt>note</dt><dd>new shape &lt;x&gt;</dd>');
    expect(html).toContain('<dt>nested a</dt><dd>1</dd>');
    expect(html).toContain(
      '<h3>points</h3><table><thead><tr><th>month</th><th>mean</th></tr></thead><tbody><tr><td>2027-01</td><td>40.25</td></tr>',
    );
  });

  it('says when there is no run, no forecast, no decision', () => {
    const html = renderReportHtml({ ...input({}, false), forecast: null });
    expect(html).toContain(NO_RUN);
    expect(html).toContain(NO_FORECAST);
    expect(html).not.toMatch(/id="(decision|outlook|primary-choice)"/);
  });

  it("is allowed its stylesheet by the route's policy, by that stylesheet's hash", () => {
    const html = renderReportHtml(input());
    const styles = [...html.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((m) => m[1]);
    expect(styles).toEqual([REPORT_STYLESHEET]);
    const hash = createHash('sha256').update(styles[0]!).digest('base64');
    expect(REPORT_CSP).toContain(`style-src 'sha256-${hash}'`);
    expect(REPORT_CSP).toMatch(/default-src 'none'/);
    expect(REPORT_STYLESHEET).toContain('@media print');
  });
});

describe('the Markdown report', () => {
  it('renders with a GFM renderer to the sections, with no link and no HTML of its own: citations are words', () => {
    const markdown = renderReportMarkdown(input(FULL));
    const html = marked.parse(markdown, { async: false, gfm: true });
    expect(html).not.toMatch(/<(script|img|iframe|b|i)\b/);
    // Founder review (issue 47): raw anchors showed wherever Markdown is read as text. None is left.
    expect(markdown.match(/<a id=|<\/a>/g) ?? [], 'raw anchors').toEqual([]);
    expect(hrefs(html)).toEqual([]);
    // The HTML page's order: the verdict first, then signals, risks and what to validate first, the chart, the dimensions.
    expect(markdown).toMatch(
      /^# .*\n\n\*\*Idea:\*\* .*\n\n\*\*Verdict: (Promising|Mixed|Weak|Unproven)\*\* \(overall 0\.62, confidence 0\.80\)\. Strongest reason: /,
    );
    const headings = [...html.matchAll(/<h2>([^<]+)<\/h2>/g)].map((m) => m[1]);
    expect(headings).toEqual([
      'Signals, risks and what to validate first',
      'Search interest',
      'The 8 dimensions',
      'Evidence, dimension by dimension',
      'Forecast',
      'Outlook, 3 to 12 months',
      'How the search phrase was chosen',
      'Research trace',
    ]);
    expect(html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
    expect(html).toContain('[click](https://evil.example)');
    expect(html.match(/<tr>\s*<td align="right">\d+<\/td>/g)).toHaveLength(40);
    expect(markdown).toContain('nowhere at all (not shown in this report)');
    expect(markdown).toContain('demand: monthly searches');
    // No text that is a pointer: the citations read as words.
    expect(html.replace(/<[^>]*>/g, ' ')).not.toMatch(/(^|[\s(,])\/(dimensions|outlook|trend_class|nowhere)\//);
  });

  // Founder review (issue 47): the chart said "latest 49" on its 30 days and the forecast, on the 90 days' own
  // scale, a level of its own, neither saying which; and the table began on the chart's last day.
  it('puts the forecast on the chart’s scale, says so, and starts it after the last day of data', () => {
    const base = input();
    const fitted = Array.from({ length: 90 }, (_, i) => ({ date: day(i - 60), value: i < 60 ? 10 : (20 + i - 60) * 2 }));
    const stored = {
      ...base.forecast!,
      // Stored before forecasts started after a partial last day: its first day is the chart's last.
      points: Array.from({ length: 7 }, (_, i) => ({
        date: day(29 + i),
        value: 100,
        lower_80: 90,
        upper_80: 110,
        lower_95: 80,
        upper_95: 120,
      })),
    };
    const markdown = renderReportMarkdown({ ...base, forecast: stored, forecastFittedOn: fitted });
    expect(markdown).toContain(`${day(30)} to ${day(35)}, the days after the last day of data, on the chart's scale`);
    expect(markdown).toMatch(/multiplied by 0\.50/);
    expect(markdown).not.toContain(`| ${day(29)} |`);
    expect(markdown).toContain(`| ${day(30)} | 50 | 45–55 | 40–60 |`);
    // Without the 90 days stored, the table says its numbers are on their own scale.
    const alone = renderReportMarkdown({ ...base, forecast: stored });
    expect(alone).toMatch(/on the scale of the 90 days it was fitted on \(100 is their highest day\), not the chart's 30-day scale/);
    expect(renderReportHtml({ ...base, forecast: stored, forecastFittedOn: fitted })).toMatch(
      /the days after the last day of data, on the chart&#39;s scale|the days after the last day of data, on the chart's scale/,
    );
  });

  it('clips forecast intervals at the scale’s bounds and says so: one 0–100 scale (founder review, issue 47)', () => {
    const base = input();
    const wide = {
      ...base.forecast!,
      points: base.forecast!.withheld ? [] : base.forecast!.points.map((p) => ({ ...p, value: 60, upper_80: 140, upper_95: 215.7 })),
    };
    // On the 90 days' own scale (no fitted series) and rescaled onto the chart's: never past 100.
    const fitted = Array.from({ length: 60 }, (_, i) => ({ date: day(i - 30), value: Math.max(1, Math.round((20 + i - 30) / 3.45)) }));
    for (const markdown of [
      renderReportMarkdown({ ...base, forecast: wide }),
      renderReportMarkdown({ ...base, forecast: wide, forecastFittedOn: fitted }),
    ]) {
      const rows = markdown.split('\n').filter((l) => l.startsWith(`| ${day(3).slice(0, 7)}`) || /^\| 2026-1\d-\d\d \|/.test(l));
      expect(rows.length).toBeGreaterThan(0);
      for (const row of rows)
        for (const n of row.match(/\d+(\.\d+)?(?=[–|\s])/g) ?? []) if (!n.startsWith('20')) expect(Number(n)).toBeLessThanOrEqual(100);
      expect(markdown).toMatch(/beyond 0–100 \(an interval past the scale's top\) clipped at its bounds/);
    }
  });

  it('says regions, not countries, in a one-market report’s reach evidence (founder review, issue 47)', () => {
    const reach = {
      score: 0.5,
      evidence: { countries_with_interest: 12, countries_with_data: 40, top_country: 'California' },
      explanation: 'x',
    };
    const us = input({ geo: 'US' });
    const markdown = renderReportMarkdown({ ...us, insight: { ...us.insight, dimensions: { ...us.insight.dimensions, reach } } });
    expect(markdown).toMatch(/regions with interest|regions_with_interest/);
    // The step's name (interest_by_country) is a name, not a claim.
    expect(markdown.split('\n').filter((l) => /countr/i.test(l.replaceAll('interest_by_country', '')))).toEqual([]);
    const world = input({ geo: '' });
    expect(renderReportMarkdown({ ...world, insight: { ...world.insight, dimensions: { ...world.insight.dimensions, reach } } })).toMatch(
      /countries/,
    );
  });

  it('names the provider of a recorded series with its dates, never "–" (founder review, issue 47)', () => {
    const recorded = { source: 'recorded-series', provider: null, data_from: '2017-10-29', data_as_of: '2022-10-23' };
    const markdown = renderReportMarkdown(input(recorded));
    expect(markdown).toMatch(/Provider\W+recorded, Google Trends, 2017-10-29 to 2022-10-23/);
    const html = renderReportHtml(input({ ...recorded, source: 'research', provider: 'replay' }));
    expect(html).toContain('recorded, Google Trends, 2017-10-29 to 2022-10-23');
    // One day of data is said as provenance's label says it beside the title: the day, not "from it to it".
    const oneDay = { ...recorded, data_from: '2022-10-23' };
    expect(provenanceOf(oneDay).label).toBe('recorded 2022-10-23');
    expect(providerWords(oneDay)).toBe('recorded, Google Trends, 2022-10-23');
  });

  it('says when there is no run and no forecast', () => {
    const markdown = renderReportMarkdown({ ...input({}, false), forecast: null });
    expect(markdown).toContain(escapeMarkdown(NO_RUN));
    expect(markdown).toContain(escapeMarkdown(NO_FORECAST));
  });
});
