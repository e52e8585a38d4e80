// An insight's report, as one printable page (report-html.ts) or as Markdown
// (report-markdown.ts), in the order a founder reads it: the verdict, at most
// three signals, risks and checks to make first, the chart of its series, the
// 8 dimensions, then their evidence, the forecast and the research run's 40
// steps. Both renderers write the same prepared report, so they cannot drift
// apart; text is escaped by each renderer, never here.
// The shapes it reads and prepares are in report-types.ts, re-exported here.
//
// Fields the insight may carry or not yet (a decision, an outlook, how its
// search phrase was chosen, whether it is partial) are read when present and
// checked here, not trusted: an entry of the wrong shape is left out.
import { DIMENSIONS, type Dimension } from '../scoring/dimensions.js';
import { clipToScale, forecastOnSeries } from '../charts/insight-chart.js';
import { anchorId, pointerOf, pointerTokens, resolvePointer } from './json-pointer.js';
import { interestNoun, provenanceOf } from '../provenance.js';
import { verdictOf } from '../research/verdict.js';
import type {
  Citation,
  Fact,
  GenericBlock,
  GenericTable,
  InsightReportInput,
  PreparedReport,
  ReportDimension,
  ReportForecast,
} from './report-types.js';

export type * from './report-types.js';

export const PARTIAL_NOTICE =
  'Fewer than 5 of the 8 dimensions could be scored, so the overall score rests on thin evidence; the dimensions say what each is missing.';

/** What each dimension asks, as docs/research.md ("What a score means") says it. */
export const DIMENSION_QUESTIONS: Record<Dimension, string> = {
  demand: 'How many people search for it?',
  momentum: 'Is interest likely to be higher next month?',
  durability: 'Has interest held over 5 years, or was it a fad?',
  reach: 'In how many places is it searched?',
  breadth: 'How many different searches surround it?',
  pain: 'How often do its searches carry problem words ("how to", "fix")?',
  intent: 'How often do its searches carry buying words ("price", "best", "buy")?',
  whitespace: 'How little do comparisons and brands crowd it?',
};

export const DECISION_GROUPS = [
  ['signals', 'Signals'],
  ['risks', 'Risks'],
  ['validate_first', 'Validate first'],
  ['why_now', 'Why now'],
] as const;

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** A number as a reader wants it: whole numbers as they are, others to 3 decimals at most. */
export function formatNumber(n: number): string {
  if (!Number.isFinite(n)) return '–';
  if (Number.isInteger(n)) return String(n);
  return String(Math.round(n * 1000) / 1000);
}

export function formatValue(v: unknown): string {
  if (v === null || v === undefined) return '–';
  if (typeof v === 'number') return formatNumber(v);
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  if (typeof v === 'string') return v;
  if (Array.isArray(v) && v.every((x) => x === null || ['string', 'number', 'boolean'].includes(typeof x)))
    return v.map(formatValue).join(', ');
  return JSON.stringify(v);
}

const score2 = (n: number | null | undefined) => (typeof n === 'number' ? n.toFixed(2) : '–');
/** A timestamp to the minute, as a reader wants it ("2026-11-27 14:26 UTC"); anything else as it is. */
export const formatTime = (iso: string) =>
  /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(iso) ? `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC` : iso;
const label = (key: string) => key.replace(/_/g, ' ');
const titleOf = (name: string) => name.charAt(0).toUpperCase() + name.slice(1);

/** Sentences a group shows at most: the report is read in two minutes. */
export const MAX_SENTENCES = 3;

/** The same sentence however it is spaced or cased: what "said twice" means. */
const sameText = (text: string) =>
  text
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .replace(/[.\s]+$/, '')
    .trim();

/** The decision's sentences, each group an array of `{ text, evidence }`; null when the insight has none to show. */
function decisionOf(value: unknown, cite: (pointer: string) => Citation): PreparedReport['decision'] {
  if (!isRecord(value)) return null;
  const said = new Set<string>();
  const groups = DECISION_GROUPS.map(([key, title]) => {
    const entries = Array.isArray(value[key]) ? (value[key] as unknown[]) : [];
    const items = entries
      .flatMap((entry) => {
        if (typeof entry === 'string') return [{ text: entry, citations: [] }];
        if (!isRecord(entry) || typeof entry.text !== 'string') return [];
        const evidence = Array.isArray(entry.evidence) ? entry.evidence.filter((p): p is string => typeof p === 'string') : [];
        return [{ text: entry.text, citations: evidence.map(cite) }];
      })
      .filter((item) => {
        const key = sameText(item.text);
        if (said.has(key)) return false;
        said.add(key);
        return true;
      })
      .slice(0, MAX_SENTENCES);
    return { key, title, items };
  }).filter((g) => g.items.length > 0);
  return groups.length > 0 ? groups : null;
}

/**
 * A pointer as a reader reads it: "/dimensions/demand/evidence/ratio" is
 * "demand: ratio", "/dimensions/pain/score" "pain score",
 * "/outlook/horizons/0/value" "outlook horizon 1 value". Never a pointer: the
 * report shows words, and links to the place the pointer names.
 */
export function citationWords(pointer: string): string {
  const tokens = pointerTokens(pointer);
  if (tokens === null || tokens.length === 0) return 'the insight';
  const words = (ts: string[]) =>
    ts
      .map((t, i) => (/^\d+$/.test(t) ? String(Number(t) + 1) : label(i > 0 && /^\d+$/.test(ts[i + 1] ?? '') ? t.replace(/s$/, '') : t)))
      .join(' ')
      .replace(/\//g, ' ');
  const [head, name, field, ...rest] = tokens;
  if (head === 'dimensions' && name !== undefined && (DIMENSIONS as readonly string[]).includes(name)) {
    const dimension = name === 'intent' ? 'buyer intent' : name;
    if (field === undefined) return dimension;
    if (field === 'evidence') return rest.length ? `${dimension}: ${words(rest)}` : `${dimension} evidence`;
    return `${dimension} ${words([field, ...rest])}`;
  }
  return words(tokens);
}

/** Scalar fields of a record, one level of nested records flattened ("backtest mae"). */
function scalarFields(record: Record<string, unknown>): Array<[string, unknown]> {
  const out: Array<[string, unknown]> = [];
  for (const [key, v] of Object.entries(record)) {
    if (isRecord(v)) {
      for (const [sub, w] of Object.entries(v)) if (!isRecord(w) && !Array.isArray(w)) out.push([`${key} ${sub}`, w]);
    } else if (!(Array.isArray(v) && v.some((x) => isRecord(x)))) {
      out.push([key, v]);
    }
  }
  return out;
}

function tableOf(title: string, records: Array<Record<string, unknown>>): GenericTable {
  const columns: string[] = [];
  const rows = records.map((r) => new Map(scalarFields(r)));
  for (const row of rows) for (const key of row.keys()) if (!columns.includes(key)) columns.push(key);
  return { title, header: columns.map(label), rows: rows.map((row) => columns.map((c) => formatValue(row.get(c)))) };
}

/** Any JSON value as facts and tables: how a field of a shape the report does not know is shown. */
export function genericBlock(value: unknown): GenericBlock {
  if (Array.isArray(value)) {
    const records = value.filter(isRecord);
    return records.length
      ? { facts: [], tables: [tableOf('', records)] }
      : { facts: [{ label: 'value', value: formatValue(value) }], tables: [] };
  }
  if (!isRecord(value)) return { facts: [{ label: 'value', value: formatValue(value) }], tables: [] };
  const facts = scalarFields(value).map(([key, v]) => ({ label: label(key), value: formatValue(v) }));
  const tables = Object.entries(value)
    .filter(([, v]) => Array.isArray(v) && v.some(isRecord))
    .map(([key, v]) => tableOf(label(key), (v as unknown[]).filter(isRecord)));
  return { facts, tables };
}

/** The candidates' columns: these first when present (in this order and with these names), then any other plain field. */
const CANDIDATE_COLUMNS: ReadonlyArray<[string, string]> = [
  ['phrase', 'Phrase'],
  ['coverage', 'Coverage'],
  ['names_product', 'Names the product'],
  ['mean', 'Mean interest'],
  ['popularity', 'Popularity'],
  ['score', 'Score'],
];

function primaryChoiceOf(value: unknown, anchor: string): PreparedReport['primaryChoice'] {
  if (!isRecord(value) || typeof value.primary !== 'string') return null;
  const candidates = Array.isArray(value.candidates) ? value.candidates.filter(isRecord) : [];
  const present = new Set(candidates.flatMap((c) => Object.keys(c).filter((k) => !isRecord(c[k]) && !Array.isArray(c[k]))));
  const known = CANDIDATE_COLUMNS.filter(([key]) => present.has(key) || key === 'phrase');
  const others = [...present].filter((key) => !CANDIDATE_COLUMNS.some(([k]) => k === key));
  const columns = [...known, ...others.map((key): [string, string] => [key, label(key)])];
  return {
    anchor,
    primary: value.primary,
    reason: typeof value.reason === 'string' ? value.reason : '',
    measured: isRecord(value.measured) ? genericBlock(value.measured).facts : [],
    header: columns.map(([, title]) => title),
    numeric: columns.flatMap(([key], i) => (candidates.some((c) => typeof c[key] === 'number') ? [i] : [])),
    rows: candidates.map((c) => ({ primary: c.phrase === value.primary, cells: columns.map(([key]) => formatValue(c[key])) })),
  };
}

const range = (lo: unknown, hi: unknown) =>
  typeof lo === 'number' && typeof hi === 'number' ? `${formatNumber(lo)}–${formatNumber(hi)}` : '–';

/**
 * The outlook as outlook.ts makes it (`{ withheld, model, reason?, horizons: [{ months, first_week,
 * last_week, withheld, value, recent, lower_80 … upper_95, backtest, reason }] }`) as one row per
 * horizon; anything else, field by field.
 */
export function outlookOf(value: unknown): GenericBlock {
  const horizons = isRecord(value) && Array.isArray(value.horizons) ? value.horizons : null;
  if (!isRecord(value) || !horizons || !horizons.every((h) => isRecord(h) && typeof h.months === 'number')) return genericBlock(value);
  const facts: Fact[] = [];
  if (typeof value.model === 'string') facts.push({ label: 'Model', value: value.model });
  if (value.withheld === true && typeof value.reason === 'string') facts.push({ label: 'Withheld', value: value.reason });
  const rows = (horizons as Array<Record<string, unknown>>).map((h) => {
    const backtest = isRecord(h.backtest) ? h.backtest : null;
    return [
      `${formatNumber(h.months as number)} months`,
      typeof h.first_week === 'string' && typeof h.last_week === 'string' ? `${h.first_week} to ${h.last_week}` : '–',
      h.withheld === true ? `withheld: ${typeof h.reason === 'string' ? h.reason : 'no reason given'}` : formatValue(h.value),
      formatValue(h.recent),
      range(h.lower_80, h.upper_80),
      range(h.lower_95, h.upper_95),
      backtest
        ? `MAE ${formatValue(backtest.mae)} against ${formatValue(backtest.mae_seasonal_naive)} for seasonal naive, ${formatValue(backtest.origins)} origins`
        : '–',
    ];
  });
  return {
    facts,
    tables: [
      {
        title: '',
        header: ['Horizon', 'Weeks', 'Mean weekly interest', 'Recent mean', '80 % interval', '95 % interval', 'Backtest'],
        rows,
      },
    ],
  };
}

function marksOf(d: ReportDimension): string[] {
  const marks: string[] = [];
  if (d.score === null) marks.push('unscored');
  if (d.experimental) marks.push('experimental');
  if (typeof d.strength === 'number' && d.strength < 1) marks.push(`thin evidence: strength ${d.strength.toFixed(2)}`);
  return marks;
}

/**
 * An evidence key as a market's report says it: a run for one country read its regions (a US run's states), so
 * "countries_with_interest" reads "regions_with_interest" (founder review, issue 47); the API keeps its keys.
 */
const regionWords = (key: string) => key.replace(/countries/g, 'regions').replace(/country/g, 'region');

export function prepareReport(input: InsightReportInput): PreparedReport {
  const { insight, series, forecast, run } = input;
  // Pointers the report shows a place for; a citation links to the nearest of them.
  const shown = new Set<string>();
  const place = (...tokens: string[]) => {
    shown.add(pointerOf(tokens));
    return anchorId(tokens);
  };

  const dimensions = DIMENSIONS.flatMap((name) => {
    const d = insight.dimensions[name];
    if (!d) return [];
    return [
      {
        name,
        title: titleOf(name),
        anchor: place('dimensions', name),
        score: score2(d.score),
        marks: marksOf(d),
        question: DIMENSION_QUESTIONS[name],
        explanation: d.explanation,
        evidence: Object.entries(d.evidence).map(([key, v]) => ({
          key: insight.geo ? regionWords(key) : key,
          value: formatValue(v),
          anchor: place('dimensions', name, 'evidence', key),
        })),
      },
    ];
  });

  const volume = insight.search_volume;
  const searchVolume = volume
    ? {
        anchor: place('search_volume'),
        location: volume.location,
        rows: volume.keywords.map((k, i) => ({
          anchor: place('search_volume', 'keywords', String(i)),
          cells: [k.keyword, formatValue(k.monthly_searches), formatValue(k.cpc_usd), formatValue(k.competition)],
        })),
      }
    : null;
  const outlook =
    insight.outlook === undefined || insight.outlook === null ? null : { ...outlookOf(insight.outlook), anchor: place('outlook') };
  const primaryChoice = primaryChoiceOf(insight.primary_choice, anchorId(['primary_choice']));
  if (primaryChoice) shown.add('/primary_choice');
  const trendReason = insight.trend_class_evidence?.reason
    ? { text: insight.trend_class_evidence.reason, anchor: place('trend_class_evidence') }
    : null;
  // The summary is not shown: the verdict says it (the overall score, the confidence, the strongest dimension), and a
  // demo insight's summary repeats its momentum, which the decision says; its anchor stays for a link made elsewhere.
  const heading = { title: place('title'), idea: place('idea'), summary: anchorId(['summary']) };
  const provenance = provenanceOf({
    source: insight.source,
    provider: insight.provider ?? null,
    data_from: insight.data_from ?? null,
    data_as_of: insight.data_as_of ?? null,
  });

  const facts: Fact[] = [
    {
      label: 'Trend class',
      value: insight.trend_class
        ? `${insight.trend_class}${insight.trend_class_hit_rate === null ? '' : ` (hit rate ${Math.round(insight.trend_class_hit_rate * 100)} %)`}`
        : '–',
      anchor: place('trend_class'),
    },
    { label: 'Category', value: insight.category },
    { label: 'Market', value: insight.geo || 'worldwide' },
    { label: 'Search phrase', value: insight.primary_keyword },
    { label: 'Source', value: `${provenance.source} (${insight.source})`, anchor: place('provenance') },
    { label: 'Provider', value: providerWords(insight), anchor: place('provider') },
    { label: 'Data as of', value: provenance.data_as_of ?? '–', anchor: place('data_as_of') },
  ];
  // The verdict line shows the overall score and the confidence: a citation of either links there.
  const verdictAnchors = { overall: place('overall_score'), confidence: place('confidence') };
  const record: Fact[] = [
    { label: 'Visibility', value: insight.visibility },
    { label: 'Created', value: formatTime(insight.created_at) },
    { label: 'Updated', value: formatTime(insight.updated_at) },
    { label: 'Id', value: insight.id },
  ];

  // Every place is known by now: a citation links to the nearest one shown, or to none.
  const cite = (pointer: string): Citation => {
    const tokens = pointerTokens(pointer);
    const words = citationWords(pointer);
    if (tokens === null || resolvePointer(insight, pointer) === undefined) return { pointer, anchor: null, words };
    for (let n = tokens.length; n > 0; n -= 1) {
      if (shown.has(pointerOf(tokens.slice(0, n)))) return { pointer, anchor: anchorId(tokens.slice(0, n)), words };
    }
    return { pointer, anchor: null, words };
  };
  const verdict = verdictOf(insight);

  const values = series.map((p) => p.value);
  const unit = series.length > 1 && Date.parse(series[1]!.date) - Date.parse(series[0]!.date) >= 7 * 86_400_000 ? 'weeks' : 'days';
  const first = series[0]?.date ?? null;
  const last = series.at(-1)?.date ?? null;
  return {
    id: insight.id,
    title: insight.title,
    idea: insight.idea,
    summary: insight.summary,
    anchors: heading,
    facts,
    record,
    partial: insight.partial === true,
    provenance: { kind: provenance.kind, notice: noticeOf(provenance) },
    trendReason,
    verdict: {
      anchors: verdictAnchors,
      label: verdict.label,
      title: titleOf(verdict.label),
      overall: score2(insight.overall_score),
      confidence: score2(insight.confidence),
      reason: verdict.reason,
      risk: verdict.risk,
      citations: verdict.evidence.map(cite),
    },
    decision: decisionOf(insight.decision, cite),
    chart: {
      points: series.length,
      unit,
      first,
      last,
      latest: series.at(-1)?.value ?? null,
      min: values.length ? Math.min(...values) : null,
      max: values.length ? Math.max(...values) : null,
      source: provenance.source,
      caption:
        first && last
          ? `${interestNoun(provenance.kind)} (0–100), ${series.length} ${unit} from ${first} to ${last}${
              provenance.data_as_of && provenance.data_as_of > last ? ` (its data runs to ${provenance.data_as_of})` : ''
            }`
          : null,
    },
    dimensions,
    searchVolume,
    forecast: forecastOf(forecast, series, input.forecastFittedOn),
    outlook,
    primaryChoice,
    trace: run
      ? {
          run: [
            { label: 'Run', value: run.id },
            { label: 'Status', value: run.status },
            { label: 'Provider', value: run.provider },
            { label: 'Started', value: formatTime(run.created_at) },
            { label: 'Finished', value: run.finished_at ? formatTime(run.finished_at) : '–' },
          ],
          error: run.error,
          steps: run.steps.map((s) => [String(s.step), s.name, s.status, s.summary ?? (s.error ? `failed: ${s.error}` : '')]),
        }
      : null,
    generatedAt: formatTime(input.generatedAt),
  };
}

/**
 * Who answered, as a reader wants it: a recorded series names the provider it was recorded from and its
 * dates ("recorded, Google Trends, 2017-10-29 to 2022-10-23"), not "–" (founder review, issue 47: a replayed
 * series had no provider to show); a simulated one says so.
 */
export function providerWords(facts: {
  source: string;
  provider?: string | null;
  data_from?: string | null;
  data_as_of?: string | null;
}): string {
  const p = provenanceOf({
    source: facts.source,
    provider: facts.provider ?? null,
    data_from: facts.data_from ?? null,
    data_as_of: facts.data_as_of ?? null,
  });
  // The dates in provenance's words, as its label says them beside the title.
  if (p.kind === 'recorded') return `recorded, Google Trends, ${p.dates}`;
  if (p.kind === 'simulated') return `${facts.provider ?? 'synthetic'} (simulated)`;
  return facts.provider ?? '–';
}

/** What a report says first of an insight that is not live research. */
function noticeOf(p: ReturnType<typeof provenanceOf>): string | null {
  if (p.kind === 'simulated')
    return 'Simulated: researched in a simulated world (the synthetic provider). Its numbers show what a report looks like; they are not real search data.';
  if (p.kind === 'recorded')
    return `Recorded: it rests on ${p.source}. The data ends ${p.data_as_of ?? 'on an unknown day'}: every window and outlook below is dated from it, not from today.`;
  return null;
}

/**
 * The forecast as the report's table shows it: on the chart's scale, so the
 * report has one "current level" (founder review, issue 47: the chart's 30 days
 * said "latest 75" and the forecast, on the 90 days' own scale, 85, neither
 * saying which it was); only days after the chart's last day (a forecast
 * stored before it started after a partial last day began on that day).
 */
function forecastOf(
  forecast: ReportForecast | null,
  series: ReadonlyArray<{ date: string; value: number }>,
  fittedOn: ReadonlyArray<{ date: string; value: number }> | undefined,
): PreparedReport['forecast'] {
  if (!forecast) return { kind: 'none' };
  if (forecast.withheld) return { kind: 'withheld', reason: forecast.reason, generatedAt: formatTime(forecast.generated_at) };
  const lastDay = series.at(-1)?.date ?? '';
  const onChart = forecastOnSeries(series, forecast.points, fittedOn);
  // On either scale, one scale: values beyond its bounds are clipped and the scale line says how many.
  const own = onChart.forecast ? null : clipToScale(forecast.points);
  const points = (onChart.forecast ?? own!.points).filter((p) => p.date > lastDay);
  const clipped = own ? own.clipped : onChart.clipped;
  const days = points.length
    ? `${points[0]!.date} to ${points.at(-1)!.date}, the days after the last day of data`
    : 'no day after the last day of data';
  const scale =
    onChart.factor === null
      ? `on the scale of the 90 days it was fitted on (100 is their highest day), not the chart's ${series.length}-day scale: ${onChart.note ?? 'the two are not compared'}`
      : onChart.factor === 1
        ? "on the chart's scale (the 90 days it was fitted on share it)"
        : `on the chart's scale: fitted on the 90 days and multiplied by ${onChart.factor.toFixed(2)}, the ratio of the chart's days to the same days of the 90 (${onChart.overlap} days in common)`;
  return {
    kind: 'served',
    model: forecast.model,
    generatedAt: formatTime(forecast.generated_at),
    scale: `${days}, ${scale}${clipped > 0 ? `. ${clipped} value${clipped === 1 ? '' : 's'} beyond 0–100 (an interval past the scale's top) clipped at its bounds` : ''}.`,
    rows: points.map((p) => [
      p.date,
      formatNumber(p.value),
      `${formatNumber(p.lower_80)}–${formatNumber(p.upper_80)}`,
      `${formatNumber(p.lower_95)}–${formatNumber(p.upper_95)}`,
    ]),
    backtest: [
      { label: 'MASE', value: formatValue(forecast.backtest.mase) },
      { label: 'MASE of seasonal naive', value: formatValue(forecast.backtest.mase_seasonal_naive) },
      { label: '80 % interval coverage', value: formatValue(forecast.backtest.coverage_80) },
      { label: '95 % interval coverage', value: formatValue(forecast.backtest.coverage_95) },
    ],
  };
}

/** What a report says where an insight has no research run. */
export const NO_RUN =
  'No research run is behind this insight (demo insights are seeded, not researched): there is no trace of steps to show.';
export const NO_FORECAST = 'No forecast yet: demo insights are not forecast; research and the daily refresh make one.';
