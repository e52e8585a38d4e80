// npm run bench:forecast — our forecaster against naive and seasonal naive on
// the real GTAB series: 30- and 90-day contexts every 7 days, each rescaled by
// its context's max, horizon 7. Calibration used only the "tune" half (split by
// a hash of the series id); the held-out half is reported separately.
import path from 'node:path';
import { readSeriesCsv } from '../src/demo/demo-seed.js';
import {
  normalIntervals,
  score,
  seasonalNaiveScale,
  splitOf,
  windows,
  type IntervalForecast,
  type Scores,
  type Window,
} from '../src/domain/forecast/evaluation.js';
import { forecastValues } from '../src/domain/forecast/forecaster.js';
import { printJsonLine, printTable, round } from './lib/report.js';
import { requireDataFile, SHARED_DATA } from './lib/shared-data.js';

const dir = path.dirname(
  requireDataFile(
    'forecast',
    path.join(process.argv[2] ?? path.join(SHARED_DATA, 'trends-series'), 'gtab-us-daily.csv'),
    'npm run bench:forecast -- DIR (a folder with gtab-us-daily.csv)',
  ),
);
const series = await readSeriesCsv(dir);

const sd = (xs: number[]) => {
  const m = xs.reduce((a, b) => a + b, 0) / xs.length;
  return Math.sqrt(xs.reduce((a, b) => a + (b - m) ** 2, 0) / Math.max(1, xs.length - 1));
};
const naive = (w: Window): IntervalForecast => {
  const c = w.context;
  const sigma = sd(c.slice(1).map((v, i) => v - c[i]!));
  return normalIntervals(Array(7).fill(c.at(-1)!), (h) => sigma * Math.sqrt(h + 1));
};
const seasonalNaive = (w: Window): IntervalForecast => {
  const c = w.context;
  const sigma = sd(c.slice(7).map((v, i) => v - c[i]!));
  return normalIntervals(c.slice(-7), () => sigma);
};

interface Acc {
  n: number;
  sum: Scores;
}
const empty = (): Acc => ({ n: 0, sum: { mase: 0, smape: 0, covered80: 0, covered95: 0, msis: 0 } });
const add = (acc: Acc, s: Scores) => {
  acc.n += 1;
  for (const k of Object.keys(s) as Array<keyof Scores>) acc.sum[k] += s[k];
};
const avg = (acc: Acc) => Object.fromEntries(Object.entries(acc.sum).map(([k, v]) => [k, v / Math.max(1, acc.n)])) as unknown as Scores;

const groups = ['tune', 'holdout', 'all'] as const;
const methods = ['ours', 'naive', 'seasonal_naive'] as const;
const acc = Object.fromEntries(groups.map((g) => [g, Object.fromEntries(methods.map((m) => [m, empty()]))])) as Record<
  (typeof groups)[number],
  Record<(typeof methods)[number], Acc>
>;
const withheld = { tune: 0, holdout: 0, all: 0 };
const total = { tune: 0, holdout: 0, all: 0 };
let oursNs = 0n;

for (const [id, points] of series) {
  const split = splitOf(id);
  const values = points.map((p) => p.value);
  for (const contextDays of [30, 90]) {
    for (const w of windows(id, values, contextDays)) {
      total[split] += 1;
      total.all += 1;
      const t0 = process.hrtime.bigint();
      const f = forecastValues(w.context, 7);
      oursNs += process.hrtime.bigint() - t0;
      if ('withheld' in f) {
        withheld[split] += 1;
        withheld.all += 1;
        continue;
      }
      const scale = seasonalNaiveScale(w.context);
      const ours: IntervalForecast = { point: f.point, lower80: f.lower80, upper80: f.upper80, lower95: f.lower95, upper95: f.upper95 };
      for (const g of [split, 'all'] as const) {
        add(acc[g].ours, score(ours, w.actual, scale));
        add(acc[g].naive, score(naive(w), w.actual, scale));
        add(acc[g].seasonal_naive, score(seasonalNaive(w), w.actual, scale));
      }
    }
  }
}

const rows = groups.flatMap((g) =>
  methods.map((m) => {
    const s = avg(acc[g][m]);
    return {
      half: g,
      method: m,
      windows: acc[g][m].n,
      MASE: round(s.mase, 3),
      sMAPE: round(s.smape, 1),
      'cov 80': round(s.covered80, 3),
      'cov 95': round(s.covered95, 3),
      'MSIS 95': round(s.msis, 2),
    };
  }),
);
printTable(`7-day forecasts on ${series.size} real series (${total.all} windows; withheld: ours only)`, rows);
const h = avg(acc.holdout.ours);
const hsn = avg(acc.holdout.seasonal_naive);
const t = avg(acc.tune.ours);
const tsn = avg(acc.tune.seasonal_naive);
const windowsPerS = total.all / (Number(oursNs) / 1e9);
process.stdout.write(
  `\nwithheld: tune ${withheld.tune}/${total.tune}, holdout ${withheld.holdout}/${total.holdout}; our forecaster: ${Math.round(windowsPerS)} windows/s in one process\n`,
);
printJsonLine({
  bench: 'forecast',
  split: 'holdout (calibrated on the tune half only)',
  mase: round(h.mase, 3),
  mase_seasonal_naive: round(hsn.mase, 3),
  mase_ratio: round(h.mase / hsn.mase, 3),
  coverage_80: round(h.covered80, 3),
  coverage_95: round(h.covered95, 3),
  msis: round(h.msis, 2),
  msis_seasonal_naive: round(hsn.msis, 2),
  msis_ratio: round(h.msis / hsn.msis, 3),
  smape: round(h.smape, 1),
  withheld: round(withheld.holdout / total.holdout, 4),
  windows_per_s: Math.round(windowsPerS),
  tune: {
    mase_ratio: round(t.mase / tsn.mase, 3),
    coverage_80: round(t.covered80, 3),
    coverage_95: round(t.covered95, 3),
    msis_ratio: round(t.msis / tsn.msis, 3),
  },
  windows: total.all,
});
