// Calibrates and backtests the 3- to 12-month outlook (src/domain/forecast/outlook.ts)
// on the real long weekly Google Trends series that exist beside the checkout: the
// 5-year weekly answers among the recorded Google exchanges (../shared/data/
// google-trends-recorded). The daily GTAB series there (242 days, 34 weeks once
// summed) are too short to hold one yearly cycle, so they cannot take part.
//
// Series are split in halves by a hash of their id (splitOf, as the 7-day
// forecast). On the TUNING half it writes src/domain/forecast/outlook-calibration.ts:
// per horizon, the interval scale with the lowest MSIS and the quantiles of
// error ÷ scale. On the HELD-OUT half it reports, per horizon, the outlook's MAE
// against seasonal naive, how often its bands held and how often it was withheld.
// Each window is what the service would have seen at that week: the history up to
// it, rescaled so its maximum is 100 (as Google rescales every request).
//
//   npm run build && node dist/scripts/backtest-outlook.js [RECORDED_DIR] [--out FILE]
//
// Prints a table per half and ends with one JSON line.
import { readdirSync, readFileSync, existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { splitOf } from '../src/domain/forecast/evaluation.js';
import {
  BASELINE,
  horizonMean,
  minWeeksFor,
  OUTLOOK_HORIZONS,
  OUTLOOK_SCALES,
  outlookBands,
  outlookValues,
  type OutlookCalibration,
  type OutlookCalibrationEntry,
  type OutlookScale,
  type OutlookWeeks,
} from '../src/domain/forecast/outlook.js';
import { cleanSeries } from '../src/domain/research/series-analysis.js';
import { parseGuardedJson, parseMultiline } from '../src/providers/google/format.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', ...(import.meta.url.includes('/dist/') ? ['..'] : []));
export const DEFAULT_RECORDED_DIR = path.resolve(root, '../shared/data/google-trends-recorded');
/** A weekly answer counts as long when it spans at least this many days (Google's `today 5-y` spans 1,826). */
const LONG_DAYS = 4 * 365;

export interface LongSeries {
  id: string;
  values: number[];
  first: string;
  last: string;
  /** The recording it was taken from (`<cassette folder>/<file>`) and how many other recordings of it were set aside. */
  source: string;
  duplicates: number;
}

interface RecordedInteraction {
  file?: string;
  uri?: string;
  query?: { req?: string };
  status?: { code?: number };
}
interface WeeklyRequest {
  time?: string;
  resolution?: string;
  comparisonItem?: Array<{
    geo?: { region?: string; country?: string };
    complexKeywordsRestriction?: { keyword?: Array<{ value?: string }> };
  }>;
}

/**
 * Every recorded 5-year weekly interest-over-time answer, one series per phrase and
 * place. The same phrase and place recorded several times (overlapping windows a few
 * months apart) is one series, the latest recording: counting it twice would count
 * the same weeks twice and could put them in both halves.
 */
export function readLongWeeklySeries(dir: string): LongSeries[] {
  const cassettes = path.join(dir, 'pytrends');
  if (!existsSync(cassettes))
    throw new Error(
      `No recorded Google exchanges at ${cassettes}: pass the folder that holds pytrends/ (the full set sits in ../shared/data beside the checkout)`,
    );
  const found = new Map<string, LongSeries[]>();
  for (const folder of readdirSync(cassettes).sort()) {
    const indexFile = path.join(cassettes, folder, 'index.json');
    if (!existsSync(indexFile)) continue;
    const index = JSON.parse(readFileSync(indexFile, 'utf8')) as { interactions?: RecordedInteraction[] };
    for (const it of index.interactions ?? []) {
      if (!it.uri?.includes('/widgetdata/multiline') || it.status?.code !== 200 || !it.file || !it.query?.req) continue;
      const req = JSON.parse(it.query.req) as WeeklyRequest;
      const [from, to] = (req.time ?? '').split(' ');
      if (req.resolution !== 'WEEK' || !from || !to || (Date.parse(to) - Date.parse(from)) / 86_400_000 < LONG_DAYS) continue;
      const items = req.comparisonItem ?? [];
      const keywords = items.map((c) => c.complexKeywordsRestriction?.keyword?.[0]?.value ?? '?');
      const body = readFileSync(path.join(cassettes, folder, it.file), 'utf8');
      const parsed = parseMultiline(parseGuardedJson(body, it.file), keywords, it.file);
      items.forEach((item, c) => {
        const id = `${keywords[c]}@${item.geo?.region ?? item.geo?.country ?? 'world'}`;
        const clean = cleanSeries(
          parsed.points.map((p) => ({ date: p.date, value: p.values[c]!, hasData: p.hasData[c], isPartial: p.isPartial })),
        );
        const list = found.get(id) ?? [];
        list.push({
          id,
          values: clean.values,
          first: clean.dates[0]!,
          last: clean.dates.at(-1)!,
          source: `${folder}/${it.file}`,
          duplicates: 0,
        });
        found.set(id, list);
      });
    }
  }
  return [...found.values()]
    .map((list) => {
      const latest = list.reduce((a, b) => (b.last > a.last || (b.last === a.last && b.values.length > a.values.length) ? b : a));
      return { ...latest, duplicates: list.length - 1 };
    })
    .sort((a, b) => a.id.localeCompare(b.id));
}

// ---------------------------------------------------------------------------

/** What the service would have had at one week of a series, and what came next. */
export interface OutlookWindow {
  seriesId: string;
  origin: number;
  context: number[];
  /** The mean of the next `weeks` weeks, in the context's units (it can pass 100). */
  actual: Partial<Record<OutlookWeeks, number>>;
}

/** Every week that leaves at least a 3-month horizon, its history rescaled to a maximum of 100. */
export function* outlookWindows(s: LongSeries): Generator<OutlookWindow> {
  for (let origin = minWeeksFor(OUTLOOK_HORIZONS[0].weeks); origin + OUTLOOK_HORIZONS[0].weeks <= s.values.length; origin += 1) {
    const max = Math.max(...s.values.slice(0, origin));
    const k = max > 0 ? 100 / max : 0;
    const actual: Partial<Record<OutlookWeeks, number>> = {};
    for (const { weeks } of OUTLOOK_HORIZONS) {
      if (origin + weeks > s.values.length) continue;
      actual[weeks] = (s.values.slice(origin, origin + weeks).reduce((a, b) => a + b, 0) / weeks) * k;
    }
    yield { seriesId: s.id, origin, context: s.values.slice(0, origin).map((v) => v * k), actual };
  }
}

interface Row {
  w: OutlookWindow;
  actual: number;
  point: number;
  naive: number;
  served: boolean;
}

/** Per horizon, every window where the outlook could be backtested (so it had a model), served or withheld. */
export function rowsOf(series: readonly LongSeries[]): Map<OutlookWeeks, Row[]> {
  const rows = new Map<OutlookWeeks, Row[]>(OUTLOOK_HORIZONS.map((h) => [h.weeks, []]));
  for (const s of series)
    for (const w of outlookWindows(s)) {
      const raw = outlookValues(w.context);
      if (!raw.model) continue;
      for (const h of raw.horizons) {
        const actual = w.actual[h.weeks];
        if (actual === undefined || !h.backtest) continue;
        rows.get(h.weeks)!.push({
          w,
          actual,
          point: horizonMean(raw.model, w.context, h.weeks),
          naive: horizonMean(BASELINE, w.context, h.weeks),
          served: h.served !== null,
        });
      }
    }
  return rows;
}

const quantile = (sorted: readonly number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.round(p * (sorted.length - 1))))]!;
const fmt = (x: number) => Number(x.toFixed(4));

/** Per horizon: the scale with the lowest mean MSIS (scaled by seasonal naive's in-sample error) and its quantiles. */
export function calibrate(rows: Map<OutlookWeeks, Row[]>): { calibration: OutlookCalibration; notes: Record<number, string> } {
  const calibration = {} as Record<OutlookWeeks, OutlookCalibrationEntry>;
  const notes: Record<number, string> = {};
  for (const [weeks, list] of rows) {
    if (list.length === 0) throw new Error(`no tuning window for the ${weeks}-week horizon: nothing to calibrate from`);
    let best: { entry: OutlookCalibrationEntry; msis: number } | undefined;
    const tried: string[] = [];
    for (const scale of Object.keys(OUTLOOK_SCALES) as OutlookScale[]) {
      const e = list.map((r) => (r.actual - r.point) / OUTLOOK_SCALES[scale](r.w.context, weeks)).sort((a, b) => a - b);
      const entry: OutlookCalibrationEntry = {
        scale,
        q80: [fmt(quantile(e, 0.1)), fmt(quantile(e, 0.9))],
        q95: [fmt(quantile(e, 0.025)), fmt(quantile(e, 0.975))],
      };
      const one = { [weeks]: entry } as unknown as OutlookCalibration;
      let msis = 0;
      for (const r of list) {
        const b = outlookBands(r.point, r.w.context, weeks, one);
        const penalty = r.actual < b.lower95 ? b.lower95 - r.actual : r.actual > b.upper95 ? r.actual - b.upper95 : 0;
        msis += (b.upper95 - b.lower95 + (2 / 0.05) * penalty) / OUTLOOK_SCALES.sn_horizon(r.w.context, weeks);
      }
      msis /= list.length;
      tried.push(`${scale} ${msis.toFixed(2)}`);
      if (!best || msis < best.msis) best = { entry, msis };
    }
    calibration[weeks] = best!.entry;
    notes[weeks] =
      `${list.length} tuning windows from ${new Set(list.map((r) => r.w.seriesId)).size} series; MSIS by scale: ${tried.join(', ')}`;
  }
  return { calibration, notes };
}

export interface HorizonReport {
  series: number;
  windows: number;
  served_windows: number;
  /** Σ|error| of the outlook ÷ Σ|error| of seasonal naive, over the windows where it was served (null if none). */
  mae_ratio_served: number | null;
  /** The same over every window, as if nothing were ever withheld. */
  mae_ratio_all: number | null;
  coverage_80: number | null;
  coverage_95: number | null;
  /** Series whose full history (the latest week) gets this horizon served, and those withheld. */
  served_now: number;
  withheld_now: number;
}

const r3 = (x: number) => Math.round(x * 1000) / 1000;

export function report(
  series: readonly LongSeries[],
  rows: Map<OutlookWeeks, Row[]>,
  calibration: OutlookCalibration,
): Record<number, HorizonReport> {
  const now = series.map((s) =>
    outlookValues(
      s.values.map((v) => (v / Math.max(...s.values)) * 100),
      calibration,
    ),
  );
  const out: Record<number, HorizonReport> = {};
  for (const { weeks } of OUTLOOK_HORIZONS) {
    const list = rows.get(weeks) ?? [];
    const served = list.filter((r) => r.served);
    const ratio = (l: Row[]) =>
      l.length
        ? r3(l.reduce((a, r) => a + Math.abs(r.actual - r.point), 0) / l.reduce((a, r) => a + Math.abs(r.actual - r.naive), 0))
        : null;
    let in80 = 0;
    let in95 = 0;
    for (const r of served) {
      const b = outlookBands(r.point, r.w.context, weeks, calibration);
      if (r.actual >= b.lower80 && r.actual <= b.upper80) in80 += 1;
      if (r.actual >= b.lower95 && r.actual <= b.upper95) in95 += 1;
    }
    const at = now.map((o) => o.horizons.find((h) => h.weeks === weeks));
    out[weeks] = {
      series: new Set(list.map((r) => r.w.seriesId)).size,
      windows: list.length,
      served_windows: served.length,
      mae_ratio_served: ratio(served),
      mae_ratio_all: ratio(list),
      coverage_80: served.length ? r3(in80 / served.length) : null,
      coverage_95: served.length ? r3(in95 / served.length) : null,
      served_now: at.filter((h) => h?.served).length,
      withheld_now: at.filter((h) => !h?.served).length,
    };
  }
  return out;
}

/** Per series and horizon: MAE ÷ seasonal naive over every window, and how many windows were served. */
export function perSeries(rows: Map<OutlookWeeks, Row[]>): Record<string, Record<number, { mae_ratio_all: number; served: string }>> {
  const out: Record<string, Record<number, { mae_ratio_all: number; served: string }>> = {};
  for (const [weeks, list] of rows)
    for (const id of new Set(list.map((r) => r.w.seriesId))) {
      const mine = list.filter((r) => r.w.seriesId === id);
      const ratio = mine.reduce((a, r) => a + Math.abs(r.actual - r.point), 0) / mine.reduce((a, r) => a + Math.abs(r.actual - r.naive), 0);
      (out[id] ??= {})[weeks] = { mae_ratio_all: r3(ratio), served: `${mine.filter((r) => r.served).length}/${mine.length}` };
    }
  return out;
}

function calibrationSource(calibration: OutlookCalibration, notes: Record<number, string>, tuneIds: string[]): string {
  const entries = OUTLOOK_HORIZONS.map(({ weeks }) => {
    const c = calibration[weeks];
    return `  // ${notes[weeks]}\n  ${weeks}: { scale: '${c.scale}', q80: [${c.q80.join(', ')}], q95: [${c.q95.join(', ')}] },`;
  });
  return `// Generated by scripts/backtest-outlook.ts from the TUNING half of the recorded
// 5-year weekly Google Trends answers (../shared/data/google-trends-recorded; series
// split by a hash of their id): ${tuneIds.join(', ')}.
// Per horizon (weeks): the interval scale with the lowest MSIS on those windows and
// the quantiles of (actual − point) ÷ scale. Do not edit by hand: regenerate after
// changing the models or the scales. docs/forecasts.md has the held-out figures.
// Plain data (outlook.ts checks its shape where it takes it), so that it imports nothing.
export const OUTLOOK_CALIBRATION = {
${entries.join('\n')}
} as const;
`;
}

function table(title: string, figures: Record<number, HorizonReport>): string {
  const head =
    '| horizon | series | windows | served | MAE ÷ seasonal naive (served) | (all) | 80 % coverage | 95 % coverage | served / withheld now |';
  const lines = OUTLOOK_HORIZONS.map(({ months, weeks }) => {
    const f = figures[weeks]!;
    return `| ${months} months | ${f.series} | ${f.windows} | ${f.served_windows} | ${f.mae_ratio_served ?? '–'} | ${f.mae_ratio_all ?? '–'} | ${f.coverage_80 ?? '–'} | ${f.coverage_95 ?? '–'} | ${f.served_now} / ${f.withheld_now} |`;
  });
  return `${title}\n${head}\n|---|---|---|---|---|---|---|---|---|\n${lines.join('\n')}\n`;
}

const USAGE =
  'usage: node dist/scripts/backtest-outlook.js [RECORDED_DIR] [--out FILE]   (after npm run build; defaults: ../shared/data/google-trends-recorded, src/domain/forecast/outlook-calibration.ts)\n';

function main(): void {
  const args = process.argv.slice(2);
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(USAGE);
    process.exit(0);
  }
  const outAt = args.indexOf('--out');
  const target = path.resolve(outAt >= 0 ? (args[outAt + 1] ?? '') : path.join(root, 'src/domain/forecast/outlook-calibration.ts'));
  const rest = outAt >= 0 ? [...args.slice(0, outAt), ...args.slice(outAt + 2)] : args;
  if (rest.length > 1 || rest[0]?.startsWith('-') || (outAt >= 0 && !args[outAt + 1])) {
    process.stderr.write(`backtest-outlook: unexpected arguments ${args.join(' ')}\n${USAGE}`);
    process.exit(2);
  }
  const dir = path.resolve(rest[0] ?? DEFAULT_RECORDED_DIR);
  const series = readLongWeeklySeries(dir);
  const tune = series.filter((s) => splitOf(s.id) === 'tune');
  const holdout = series.filter((s) => splitOf(s.id) === 'holdout');
  process.stdout.write(`${series.length} long weekly series in ${dir}:\n`);
  for (const s of series)
    process.stdout.write(
      `  ${splitOf(s.id).padEnd(7)} ${s.id.padEnd(14)} ${s.values.length} weeks ${s.first}..${s.last}, range ${Math.min(...s.values)}–${Math.max(...s.values)}` +
        ` (${s.source}; ${s.duplicates} older overlapping recording(s) set aside)\n`,
    );

  const tuneRows = rowsOf(tune);
  const { calibration, notes } = calibrate(tuneRows);
  writeFileSync(
    target,
    calibrationSource(
      calibration,
      notes,
      tune.map((s) => s.id),
    ),
  );
  process.stdout.write(`\nwrote ${target}:\n`);
  for (const { weeks } of OUTLOOK_HORIZONS)
    process.stdout.write(`  ${weeks} weeks: ${JSON.stringify(calibration[weeks])}  (${notes[weeks]})\n`);

  const tuned = report(tune, tuneRows, calibration);
  const holdoutRows = rowsOf(holdout);
  const heldOut = report(holdout, holdoutRows, calibration);
  const bySeries = { ...perSeries(tuneRows), ...perSeries(holdoutRows) };
  process.stdout.write(`\n${table(`Tuning half (${tune.length} series, in sample for the bands)`, tuned)}`);
  process.stdout.write(`\n${table(`Held-out half (${holdout.length} series)`, heldOut)}\n`);
  process.stdout.write('Per series, MAE ÷ seasonal naive over every window (served windows / windows):\n');
  for (const [id, h] of Object.entries(bySeries).sort(([a], [b]) => a.localeCompare(b)))
    process.stdout.write(
      `  ${splitOf(id).padEnd(7)} ${id.padEnd(14)} ${OUTLOOK_HORIZONS.map(({ months, weeks }) => `${months} months ${h[weeks]?.mae_ratio_all ?? '–'} (${h[weeks]?.served ?? '–'})`).join(', ')}\n`,
    );
  process.stdout.write('\n');
  process.stdout.write(
    `${JSON.stringify({
      script: 'backtest-outlook',
      series: { total: series.length, tune: tune.map((s) => s.id), holdout: holdout.map((s) => s.id) },
      calibration,
      tune: tuned,
      holdout: heldOut,
      per_series: bySeries,
    })}\n`,
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) main();
