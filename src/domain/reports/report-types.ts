// The shapes of an insight's report: what it reads (the insight as the API
// serves it, its forecast and run) and what it prepares for the renderers.
// Split from insight-report.ts, which re-exports them.
import type { Dimension } from '../scoring/dimensions.js';
import type { ChartForecastPoint } from '../charts/insight-chart.js';
import type { ProvenanceKind } from '../provenance.js';
import type { VerdictLabel } from '../research/verdict.js';

type EvidenceValue = number | string | boolean | null;

export interface ReportDimension {
  score: number | null;
  evidence: Record<string, EvidenceValue>;
  explanation: string;
  strength?: number;
  experimental?: boolean;
}

/** The insight as GET /api/insights/{id} answers it (the fields a report reads). Evidence pointers resolve against it. */
export interface ReportInsight {
  id: string;
  title: string;
  idea: string;
  primary_keyword: string;
  category: string;
  source: string;
  overall_score: number;
  confidence: number;
  dimensions: Partial<Record<Dimension, ReportDimension>>;
  trend_class: string | null;
  trend_class_hit_rate: number | null;
  trend_class_evidence?: { rule: string; reason: string | null; claim: string } | null;
  summary: string;
  geo: string;
  visibility: string;
  created_at: string;
  updated_at: string;
  /** The providers it was researched with; null for a recorded series. */
  provider?: string | null;
  /** First and last day of the data it rests on (YYYY-MM-DD). */
  data_from?: string | null;
  data_as_of?: string | null;
  search_volume?: {
    location: string;
    keywords: Array<{ keyword: string; monthly_searches: number | null; cpc_usd: number | null; competition: string | null }>;
  } | null;
  /** `{ signals, risks, validate_first, why_now }`, each `[{ text, evidence: [JSON Pointer] }]`. */
  decision?: unknown;
  /** The 3–12 month outlook (domain/forecast/outlook.ts): a table of its horizons; any other shape as its fields. */
  outlook?: unknown;
  /** `{ primary, reason, candidates: [{ phrase, coverage, mean, score }] }`. */
  primary_choice?: unknown;
  partial?: unknown;
}

export type ReportForecast =
  | {
      withheld: false;
      model: string;
      generated_at: string;
      points: ChartForecastPoint[];
      backtest: { mase: number | null; mase_seasonal_naive: number | null; coverage_80: number | null; coverage_95: number | null };
    }
  | { withheld: true; reason: string; generated_at: string };

export interface ReportRun {
  id: string;
  status: string;
  provider: string;
  created_at: string;
  finished_at: string | null;
  /** Why it failed, in the public words. */
  error: string | null;
  /** All 40, in order; a step not reached is `pending`. */
  steps: Array<{ step: number; name: string; status: string; summary: string | null; error: string | null }>;
}

/** What a partial insight's report says of it (fewer than 5 of 8 dimensions scored, whether researched or seeded). */
export interface InsightReportInput {
  insight: ReportInsight;
  /** The 30 most recent days (the chart's default window). */
  series: Array<{ date: string; value: number }>;
  /** The series the forecast was fitted on (the 90 days), when stored: the chart puts the forecast on the series' scale through it. */
  forecastFittedOn?: Array<{ date: string; value: number }>;
  forecast: ReportForecast | null;
  /** The latest run behind the insight; null when none is (demo insights are seeded, not researched). */
  run: ReportRun | null;
  generatedAt: string;
}

export interface Fact {
  label: string;
  value: string;
  /** The element id of a fact a citation may point at. */
  anchor?: string;
}
/** A cited place in the insight: where it is shown in the report (an element id), or null when the report does not show it. */
export interface Citation {
  pointer: string;
  anchor: string | null;
  /** What the link reads as ("demand score", "demand: ratio"): a reader sees words, the pointer stays its target. */
  words: string;
}
export interface GenericTable {
  title: string;
  header: string[];
  rows: string[][];
}
/** A value of unknown shape as a reader sees it: its plain fields, and a table for each list of records. */
export interface GenericBlock {
  facts: Fact[];
  tables: GenericTable[];
}

export interface PreparedReport {
  id: string;
  title: string;
  idea: string;
  summary: string;
  facts: Fact[];
  /** The insight as a record (visibility, dates, id): said at the end, not before the verdict's reasons. */
  record: Fact[];
  partial: boolean;
  /** What the insight rests on; `notice` is said first when it is not live research. */
  provenance: { kind: ProvenanceKind; notice: string | null };
  /** The element ids of the title, the idea and the summary. */
  anchors: { title: string; idea: string; summary: string };
  /** Why the trend class holds for this insight: said with the momentum's evidence. */
  trendReason: { text: string; anchor: string } | null;
  /** The line read first (domain/research/verdict.ts): a label, the strongest reason and the biggest risk, cited. */
  verdict: {
    /** The element ids of the overall score and the confidence, which the verdict line shows. */
    anchors: { overall: string; confidence: string };
    label: VerdictLabel;
    title: string;
    /** The overall score and the confidence, to two decimals. */
    overall: string;
    confidence: string;
    reason: string;
    risk: string;
    citations: Citation[];
  };
  /** At most three sentences a group, none said twice. */
  decision: Array<{ key: string; title: string; items: Array<{ text: string; citations: Citation[] }> }> | null;
  chart: {
    points: number;
    /** What a point is: a day, or a week (a replayed recording may be weekly). */
    unit: 'days' | 'weeks';
    first: string | null;
    last: string | null;
    latest: number | null;
    min: number | null;
    max: number | null;
    /** Whose interest and which dates, e.g. "Recorded Google Trends interest (0–100), 30 weeks from 2021-06-06 to 2021-12-26 (its data runs to 2022-10-23)". */
    caption: string | null;
    /** Where the series comes from, in words with its dates: the caption's provenance. */
    source: string;
  };
  dimensions: Array<{
    name: Dimension;
    title: string;
    anchor: string;
    score: string;
    marks: string[];
    /** The question the dimension answers: the dimensions table says it; the explanation is with the evidence, said once. */
    question: string;
    explanation: string;
    evidence: Array<{ key: string; value: string; anchor: string }>;
  }>;
  searchVolume: { anchor: string; location: string; rows: Array<{ anchor: string; cells: string[] }> } | null;
  forecast:
    | {
        kind: 'served';
        model: string;
        generatedAt: string;
        /** Which scale the rows are on and which days they cover, said beside the table: the chart's, or the 90 days' own. */
        scale: string;
        rows: string[][];
        backtest: Fact[];
      }
    | { kind: 'withheld'; reason: string; generatedAt: string }
    | { kind: 'none' };
  outlook: (GenericBlock & { anchor: string }) | null;
  primaryChoice: {
    anchor: string;
    primary: string;
    reason: string;
    /** Where the candidates' means come from (the comparison they were measured in). */
    measured: Fact[];
    header: string[];
    /** The columns holding numbers. */
    numeric: number[];
    rows: Array<{ primary: boolean; cells: string[] }>;
  } | null;
  trace: { run: Fact[]; error: string | null; steps: string[][] } | null;
  generatedAt: string;
}
