// npm run bench:momentum — does momentum predict next month? On the real GTAB
// series (../shared/data/trends-series): 90 days of context every 7 days, the
// outcome is the next 30 days' mean against the last 30 days'. Today's
// formula, the two-term rule of thumb and the 7-day forecast's direction are
// scored on the same windows as the baseline; the tuning half (splitOf) chose
// the coefficients, the held-out half checks them, and the refit below shows
// where the shipped coefficients come from.
import path from 'node:path';
import { readSeriesCsv } from '../src/demo/demo-seed.js';
import { forecastValues } from '../src/domain/forecast/forecaster.js';
import {
  classValidity,
  momentumWindows,
  publishedFigures,
  scoreValidity,
  type MomentumWindow,
  type ScoreValidity,
} from '../src/domain/scoring/momentum-backtest.js';
import { momentumFeatures, MOMENTUM_MODELS } from '../src/domain/scoring/momentum-features.js';
import { TREND_CLASSES } from '../src/domain/scoring/trend-class.js';
import { momentumV1 } from './lib/momentum-v1.js';
import { printJsonLine, printTable, round } from './lib/report.js';
import { requireDataFile, SHARED_DATA } from './lib/shared-data.js';

const dir = path.dirname(
  requireDataFile(
    'momentum',
    path.join(process.argv[2] ?? path.join(SHARED_DATA, 'trends-series'), 'gtab-us-daily.csv'),
    'npm run bench:momentum -- DIR (a folder with gtab-us-daily.csv)',
  ),
);
const series = await readSeriesCsv(dir);
const windows: MomentumWindow[] = [];
for (const [id, points] of series)
  windows.push(
    ...momentumWindows(
      id,
      points.map((p) => p.value),
    ),
  );
const halves = { tune: windows.filter((w) => w.split === 'tune'), holdout: windows.filter((w) => w.split === 'holdout'), all: windows };

const logRatio = (a: number, b: number) => Math.log((a + 0.5) / (b + 0.5));
const meanOf = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  const i = (s.length - 1) * q;
  return s[Math.floor(i)]! + (s[Math.ceil(i)]! - s[Math.floor(i)]!) * (i - Math.floor(i));
};
/** A raw signal → [0,1], its tuning-half 18th/82nd percentiles at 0.27/0.73 (as momentum's own calibration). */
function calibrated(signal: (w: MomentumWindow) => number | null) {
  const tune = halves.tune.map(signal).filter((x): x is number => x !== null);
  const lo = quantile(tune, 0.18);
  const hi = quantile(tune, 0.82);
  const center = (lo + hi) / 2;
  const scale = (hi - lo) / (2 * Math.log(0.73 / 0.27));
  return (w: MomentumWindow) => {
    const x = signal(w);
    return x === null ? null : 1 / (1 + Math.exp(-(x - center) / scale));
  };
}

// The rule of thumb: last week against the month (it carries on), less the month against the 60 days before it (it reverts).
const ruleOfThumb = calibrated(
  (w) =>
    logRatio(meanOf(w.days90.slice(-7)), meanOf(w.days90.slice(-30))) -
    logRatio(meanOf(w.days90.slice(-30)), meanOf(w.days90.slice(0, 60))),
);
// The forecast's direction: its 7-day mean against the last week's (what today's formula gave a third of its weight).
const t0 = performance.now();
const forecastDirection = new Map<MomentumWindow, number | null>();
for (const w of windows) {
  const f = forecastValues(w.days90, 7);
  const lastWeek = meanOf(w.days90.slice(-7));
  forecastDirection.set(w, 'withheld' in f || lastWeek === 0 ? null : meanOf(f.point) / lastWeek - 1);
}
const forecastMs = performance.now() - t0;
const forecastOnly = calibrated((w) => forecastDirection.get(w) ?? null);

const methods: Record<string, (w: MomentumWindow) => number | null> = {
  'today (v1, 30-day trend)': (w) => momentumV1(w.days30),
  'rule of thumb (2 terms)': ruleOfThumb,
  'forecast direction alone': forecastOnly,
  'ours, 30-day model': (w) => momentumFeatures(w.days30)?.score ?? null,
  'ours, 90-day model': (w) => momentumFeatures(w.days30, w.days90)?.score ?? null,
};
const results: Record<string, Record<string, ScoreValidity>> = {};
const rows: Array<Record<string, string | number>> = [];
for (const [name, scoreOf] of Object.entries(methods)) {
  results[name] = {};
  for (const [half, ws] of Object.entries(halves)) {
    const v = scoreValidity(ws, scoreOf);
    results[name][half] = v;
    rows.push({
      method: name,
      half,
      windows: v.windows,
      rank_corr: round(v.rankCorrelation, 3),
      'higher|rising': round(v.higherWhenRising, 3),
      'higher|falling': round(v.higherWhenFalling, 3),
      'higher|all': round(v.higherAll, 3),
      labelled: round(v.labelledShare, 3),
    });
  }
}
printTable(`Momentum against next month (${windows.length} windows of ${series.size} series; rising ≥ 0.73, falling ≤ 0.27)`, rows);

// Where the shipped coefficients and calibration come from: ridge regression (λ = 1) of the
// outcome's rank on the tuning half, then the tuning half's 18th and 82nd percentiles of the
// signal put at scores 0.27 and 0.73.
function ridgeOnRanks(rows: Array<{ x: number[]; y: number }>): number[] {
  const order = rows.map((_, i) => i).sort((i, j) => rows[i]!.y - rows[j]!.y);
  const rank = new Array<number>(rows.length);
  order.forEach((i, r) => (rank[i] = r / rows.length));
  const n = rows[0]!.x.length;
  const a = Array.from({ length: n }, (_, i) =>
    Array.from({ length: n }, (_, j) => (i === j ? 1 : 0) + rows.reduce((s, t) => s + t.x[i]! * t.x[j]!, 0)),
  );
  const b = Array.from({ length: n }, (_, i) => rows.reduce((s, t, k) => s + t.x[i]! * rank[k]!, 0));
  for (let i = 0; i < n; i += 1) {
    for (let j = i + 1; j < n; j += 1) {
      const factor = a[j]![i]! / a[i]![i]!;
      for (let k = i; k < n; k += 1) a[j]![k]! -= factor * a[i]![k]!;
      b[j]! -= factor * b[i]!;
    }
  }
  const w = new Array<number>(n).fill(0);
  for (let i = n - 1; i >= 0; i -= 1) w[i] = (b[i]! - a[i]!.slice(i + 1).reduce((s, x, k) => s + x * w[i + 1 + k]!, 0)) / a[i]![i]!;
  return w.slice(1).map((c) => round(c, 3));
}
const refits = (['90d', '30d'] as const).map((model) => {
  const features = halves.tune.flatMap((w) => {
    const f = model === '90d' ? momentumFeatures(w.days30, w.days90) : momentumFeatures(w.days30);
    return f ? [{ f, y: w.nextMean / w.monthMean }] : [];
  });
  const coefficients =
    model === '90d'
      ? ridgeOnRanks(features.map(({ f, y }) => ({ x: [1, f.weekVsMonth, f.monthVsTwoBefore, f.spike * f.weekVsMonth], y })))
      : ridgeOnRanks(features.map(({ f, y }) => ({ x: [1, f.weekVsMonth, f.spike * f.weekVsMonth], y })));
  const signals = features.map(({ f }) => f.signal);
  const lo = quantile(signals, 0.18);
  const hi = quantile(signals, 0.82);
  const m = MOMENTUM_MODELS[model];
  return [
    { model, source: 'shipped', week: m.week, month: m.month, spike_week: m.spikeWeek, center: m.center, scale: m.scale },
    {
      model,
      source: 'refit (tuning half)',
      week: coefficients[0]!,
      month: model === '90d' ? coefficients[1]! : 0,
      spike_week: coefficients.at(-1)!,
      center: round((lo + hi) / 2, 4),
      scale: round((hi - lo) / (2 * Math.log(0.73 / 0.27)), 4),
    },
  ];
});
printTable('Coefficients (week vs month, month vs two months before, spike × week) and calibration', refits.flat());
const coefficients = refits[0]![1]!;

const classes = Object.fromEntries(Object.entries(halves).map(([half, ws]) => [half, classValidity(ws)]));
printTable(
  'Trend classes (90-day model): share of windows, and how often the class claim held (base: the same claim over all windows)',
  TREND_CLASSES.flatMap((c) =>
    Object.keys(halves).map((half) => {
      const v = classes[half]![c];
      return {
        class: c,
        half,
        windows: v.windows,
        share: round(v.share, 3),
        hit_rate: v.hitRate === null ? 'not measurable' : round(v.hitRate, 3),
        base_rate: v.baseRate === null ? '–' : round(v.baseRate, 3),
      };
    }),
  ),
);

const ours = results['ours, 90-day model']!;
const today = results['today (v1, 30-day trend)']!;
const figures = (v: ScoreValidity) => ({
  rank_corr: round(v.rankCorrelation, 3),
  higher_when_rising: round(v.higherWhenRising, 3),
  higher_when_falling: round(v.higherWhenFalling, 3),
  labelled_share: round(v.labelledShare, 3),
});
process.stdout.write(
  `\nTargets (held-out half): rank correlation ${round(ours.holdout!.rankCorrelation, 3)} (≥ 0.35), rising higher ${round(ours.holdout!.higherWhenRising, 3)} (≥ 0.65), ` +
    `falling higher ${round(ours.holdout!.higherWhenFalling, 3)} (≤ 0.35), labelled ${round(ours.holdout!.labelledShare, 3)} (≥ 0.333). ` +
    `Forecast directions for ${windows.length} windows took ${Math.round(forecastMs)} ms.\n`,
);
process.stdout.write(
  `\nWhat backtest-results.ts publishes (the unit test checks they match):\n${JSON.stringify(publishedFigures(windows, (w) => momentumV1(w.days30)))}\n`,
);
printJsonLine({
  bench: 'momentum',
  windows: windows.length,
  series: series.size,
  baseline_today: { all: figures(today.all!), holdout: figures(today.holdout!) },
  rule_of_thumb: { all: figures(results['rule of thumb (2 terms)']!.all!) },
  forecast_direction: { all: figures(results['forecast direction alone']!.all!) },
  ours_30d: { all: figures(results['ours, 30-day model']!.all!), holdout: figures(results['ours, 30-day model']!.holdout!) },
  ours: { tune: figures(ours.tune!), holdout: figures(ours.holdout!), all: figures(ours.all!) },
  rank_corr_ratio_vs_today: round(ours.all!.rankCorrelation / today.all!.rankCorrelation, 2),
  refit_90d: coefficients,
  classes: Object.fromEntries(
    TREND_CLASSES.map((c) => [
      c,
      {
        share: round(classes.all![c].share, 3),
        hit_rate_holdout: classes.holdout![c].hitRate === null ? null : round(classes.holdout![c].hitRate!, 3),
        base_rate: classes.all![c].baseRate === null ? null : round(classes.all![c].baseRate!, 3),
      },
    ]),
  ),
});
