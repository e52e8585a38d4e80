// The published validity of momentum and the trend classes: what
// `npm run bench:momentum` measured, copied here so the API can serve it
// (GET /api/methodology, each insight's trend-class hit rate). The test
// test/unit/momentum-backtest.test.ts recomputes every figure from the data
// and fails if one no longer matches: re-run the bench and update them
// together with the formula.

export interface ScoreFigures {
  rank_correlation: number;
  higher_when_rising: number;
  higher_when_falling: number;
  labelled_share: number;
}

export interface ClassFigures {
  /** Share of the held-out half's windows where the class's claim held; null when it claims nothing the data can check. */
  hit_rate: number | null;
  hit_rate_tuning: number | null;
  /** The same claim over all windows, whatever their class. */
  base_rate: number | null;
  /** Share of all windows in the class. */
  share: number;
  windows: number;
  note?: string;
}

export const BACKTEST: {
  measured_on: string;
  data: string;
  method: string;
  windows: { tuning: number; held_out: number };
  momentum: { held_out: ScoreFigures; tuning: ScoreFigures; held_out_30_day_model: ScoreFigures; previous_formula_held_out: ScoreFigures };
  trendClasses: Record<'exploding' | 'rising' | 'stable' | 'declining' | 'peaked' | 'seasonal', ClassFigures>;
} = {
  measured_on: '2026-11-23',
  data: '466 real daily Google Trends series (US, 2019-11-28 to 2020-07-26; GTAB anchor bank, epfl-dlab/GoogleTrendsAnchorBank), ../shared/data/trends-series',
  method:
    "Windows of 90 days every 7 days, each rescaled and rounded as a Google request answers (8,228 windows). The outcome is the next 30 days' mean against the last 30 days'. Series are split in halves by a hash of their id: coefficients and the score calibration are fitted on the tuning half only; the held-out half measures them. The features and the class thresholds were chosen by looking at the whole set, so held-out figures are somewhat optimistic: series from outside this set are the real test (insights score-series). Higher = next month's mean above this month's.",
  windows: {
    tuning: 3850,
    held_out: 4378,
  },
  momentum: {
    held_out: {
      rank_correlation: 0.375,
      higher_when_rising: 0.74,
      higher_when_falling: 0.3,
      labelled_share: 0.368,
    },
    tuning: {
      rank_correlation: 0.355,
      higher_when_rising: 0.689,
      higher_when_falling: 0.28,
      labelled_share: 0.361,
    },
    held_out_30_day_model: {
      rank_correlation: 0.273,
      higher_when_rising: 0.704,
      higher_when_falling: 0.36,
      labelled_share: 0.426,
    },
    previous_formula_held_out: {
      rank_correlation: 0.22,
      higher_when_rising: 0.659,
      higher_when_falling: 0.412,
      labelled_share: 0.503,
    },
  },
  trendClasses: {
    exploding: {
      hit_rate: 0.926,
      hit_rate_tuning: 0.906,
      base_rate: 0.149,
      share: 0.02,
      windows: 166,
    },
    rising: {
      hit_rate: 0.774,
      hit_rate_tuning: 0.751,
      base_rate: 0.508,
      share: 0.114,
      windows: 942,
    },
    stable: {
      hit_rate: 0.803,
      hit_rate_tuning: 0.804,
      base_rate: 0.646,
      share: 0.491,
      windows: 4040,
    },
    declining: {
      hit_rate: 0.701,
      hit_rate_tuning: 0.731,
      base_rate: 0.487,
      share: 0.115,
      windows: 948,
    },
    peaked: {
      hit_rate: 0.872,
      hit_rate_tuning: 0.781,
      base_rate: 0.725,
      share: 0.259,
      windows: 2132,
    },
    seasonal: {
      note: 'The backtest data cover 242 days, so no year repeats in them: the seasonal claim is not measured yet.',
      hit_rate: null,
      hit_rate_tuning: null,
      base_rate: null,
      share: 0,
      windows: 0,
    },
  },
};
