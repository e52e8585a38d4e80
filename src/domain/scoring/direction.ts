// One statement of where interest is heading, from every reading an insight has
// of it: momentum's prediction (the month ahead), the trend class (its rule over
// the 90 days), the 7-day forecast (fitted on the 90 days), the outlook (months
// ahead, from the 5 years) and, behind them, durability's 5-year trajectory.
// They read different windows with different models, so they may disagree; the
// statement then says so and why, instead of letting a page say "a rise" and
// "peaked" and "falls" in three places, or "stable" beside a durability that
// says "rising" (founder review, issue 47: padel). The readings of what comes
// next lead; the years behind are said after them, as context. Pure.
import type { DimensionScore } from './dimensions.js';
import { servedHorizon } from '../forecast/outlook.js';

export type Heading = 'up' | 'down' | 'flat' | 'no call';

/** A forecast or outlook within this share of the level it starts from is "about level". */
export const FLAT_WITHIN = 0.1;

export interface DirectionReading {
  source: 'momentum' | 'trend class' | '7-day forecast' | 'outlook' | 'durability';
  heading: Heading;
  /** What it says, in words that carry its heading ("rises", "falls", "holds", "makes no call"). */
  says: string;
  /** JSON Pointer into the insight as the API serves it. */
  evidence: string;
  /** The span it reads, as a reader says it ("the next 7 days", "the month ahead", "the next 3 months"). */
  window: string;
}

export interface DirectionStatement {
  text: string;
  /** False when some reading rises and another falls. */
  agree: boolean;
  readings: DirectionReading[];
  evidence: string[];
}

export interface DirectionInput {
  momentum?: DimensionScore | null;
  trend_class: string | null;
  outlook?: unknown;
  /** Durability's reading of the 5 years behind (its evidence's trajectory and change). */
  durability?: DimensionScore | null;
}

const signedPercent = (x: number) => `${x > 0 ? '+' : x < 0 ? '−' : '±'}${Math.abs(Math.round(x * 100))}%`;
const headingOf = (change: number): Heading => (change > FLAT_WITHIN ? 'up' : change < -FLAT_WITHIN ? 'down' : 'flat');
const VERB: Record<Heading, string> = { up: 'rises', down: 'falls', flat: 'holds level', 'no call': 'makes no call' };

const TREND_HEADING: Record<string, Heading> = {
  exploding: 'up',
  rising: 'up',
  stable: 'flat',
  declining: 'down',
  peaked: 'down',
  seasonal: 'no call',
};

/** The heading of each 5-year trajectory (series-analysis.ts): a recovery fell and came back, so it makes no call. */
const TRAJECTORY_HEADING: Record<string, Heading> = {
  rising: 'up',
  stable: 'flat',
  declining: 'down',
  peaked: 'down',
  recovering: 'no call',
};

/**
 * Shapes a bare verb would misstate: a recovery fell and came back; a peak rose and fell from it, so its first
 * fifth may still be below its last ("peaked, falls … +3%" read as a contradiction: founder try-out, issue 47).
 */
const TRAJECTORY_VERB: Record<string, string> = { recovering: 'fell and came back', peaked: 'rose to a peak and fell from it' };

function durabilityReading(d: DimensionScore | null | undefined): DirectionReading | null {
  if (!d || d.score === null) return null;
  const trajectory = d.evidence.trajectory;
  if (typeof trajectory !== 'string' || !TRAJECTORY_HEADING[trajectory]) return null;
  const heading = TRAJECTORY_HEADING[trajectory]!;
  const change = typeof d.evidence.change === 'number' ? `, ${signedPercent(d.evidence.change)} from its first fifth to its last` : '';
  const years = typeof d.evidence.years === 'number' ? `${d.evidence.years}-year` : 'long-run';
  return {
    source: 'durability',
    heading,
    says: `the ${years} trajectory, ${trajectory}, ${TRAJECTORY_VERB[trajectory] ?? VERB[heading]} over the years behind (durability${change})`,
    evidence: '/dimensions/durability/evidence/trajectory',
    window: 'the years behind',
  };
}

function outlookReading(outlook: unknown): DirectionReading | null {
  const served = servedHorizon(outlook);
  if (!served) return null;
  const { horizon: h, index } = served;
  const change = h.value / h.recent - 1;
  const heading = headingOf(change);
  return {
    source: 'outlook',
    heading,
    says: `the ${h.months}-month outlook ${VERB[heading]} (${h.value} against the last ${h.months} months' ${h.recent}, ${signedPercent(change)})`,
    evidence: `/outlook/horizons/${index}/value`,
    window: `the next ${h.months} months`,
  };
}

/** Every reading of direction the insight has, in the order of their horizons (7 days, the month, months). */
export function directionReadings(input: DirectionInput): DirectionReading[] {
  const readings: DirectionReading[] = [];
  const m = input.momentum;
  const e = m?.score !== null && m?.score !== undefined ? m.evidence : null;
  const forecastChange = e?.forecast_7d_change;
  if (typeof forecastChange === 'number') {
    const heading = headingOf(forecastChange);
    readings.push({
      source: '7-day forecast',
      heading,
      says: `the 7-day forecast ${VERB[heading]} (its mean ${String(e!.forecast_7d_mean)} against the last week's ${String(e!.forecast_7d_last_week)} on the 90-day series, ${signedPercent(forecastChange)})`,
      evidence: '/dimensions/momentum/evidence/forecast_7d_change',
      window: 'the next 7 days',
    });
  }
  if (e && typeof e.label === 'string') {
    const heading: Heading = e.label === 'rising' ? 'up' : e.label === 'falling' ? 'down' : 'no call';
    readings.push({
      source: 'momentum',
      heading,
      says: `momentum ${heading === 'no call' ? 'makes no call on' : `predicts interest ${heading === 'up' ? 'rises' : 'falls'} in`} the month ahead (from the last week and month)`,
      evidence: '/dimensions/momentum/evidence/label',
      window: 'the month ahead',
    });
  }
  if (input.trend_class && TREND_HEADING[input.trend_class]) {
    const heading = TREND_HEADING[input.trend_class]!;
    readings.push({
      source: 'trend class',
      heading,
      says: `the trend class, ${input.trend_class}, ${heading === 'no call' ? 'follows the season and makes no call' : `says the month ahead ${VERB[heading]}`} (its rule over the 90 days)`,
      evidence: '/trend_class',
      window: 'the month ahead',
    });
  }
  const outlook = outlookReading(input.outlook);
  if (outlook) readings.push(outlook);
  const durability = durabilityReading(input.durability);
  if (durability) readings.push(durability);
  return readings;
}

const list = (xs: string[]) => (xs.length <= 1 ? (xs[0] ?? '') : `${xs.slice(0, -1).join(', ')} and ${xs.at(-1)}`);

/** The one statement of direction; null when the insight has no reading of it. */
export function directionStatement(input: DirectionInput): DirectionStatement | null {
  const readings = directionReadings(input);
  if (readings.length === 0) return null;
  const evidence = readings.map((r) => r.evidence);
  const says = (rs: DirectionReading[]) => list(rs.map((r) => r.says));
  // What comes next decides, and only it can disagree; the years behind are said after it, as context
  // (they lead only when nothing reads what comes next): a rise over 5 years and a fall next month can both be true.
  const past = readings.find((r) => r.source === 'durability');
  const ahead = readings.filter((r) => r.source !== 'durability');
  const leading = ahead.length ? ahead : readings;
  const ups = leading.filter((r) => r.heading === 'up');
  const downs = leading.filter((r) => r.heading === 'down');
  const behind = (heading: Heading) =>
    past && ahead.length
      ? past.heading === heading
        ? `; ${past.says}, in line with it`
        : `; ${past.says}: the years behind and the weeks ahead are different spans, so both can be true`
      : '';
  if (ups.length && downs.length) {
    const rest = leading.filter((r) => r.heading !== 'up' && r.heading !== 'down');
    return {
      agree: false,
      readings,
      evidence,
      text:
        `Direction: the readings disagree. Up: ${says(ups)}. Down: ${says(downs)}.${rest.length ? ` Neither: ${says(rest)}.` : ''}` +
        ' They read different windows with different models (the forecast the next 7 days, momentum and the trend class the month ahead, the outlook months ahead), so none settles it: watch the next weeks before counting on either.' +
        (past ? ` Behind them, ${past.says}.` : ''),
    };
  }
  // A rise (or a fall) in one window beside a level reading in another is not "rising" (or "falling") alone
  // (founder review, issue 47: "rising" from the 3-month outlook beside a flat 7-day forecast): each window
  // is said with its own heading, nearest first, and why both hold.
  const flats = leading.filter((r) => r.heading === 'flat');
  if ((ups.length || downs.length) && flats.length) {
    const moving = ups.length ? ups : downs;
    const word = ups.length ? 'rising' : 'falling';
    const windows = [...new Set([...flats, ...moving].map((r) => r.window))];
    const byWindow = windows.map((w) => {
      const rs = leading.filter((r) => r.window === w && r.heading !== 'no call');
      const heads = new Set(rs.map((r) => r.heading));
      const label = heads.size > 1 ? `${word} and level by different readings` : heads.has('flat') ? 'about level' : word;
      return `${label} over ${w} (${says(rs)})`;
    });
    const rest = leading.filter((r) => r.heading === 'no call');
    return {
      agree: true,
      readings,
      evidence,
      text:
        `Direction, window by window: ${byWindow.join('; ')}${rest.length ? `; ${says(rest)}` : ''}.` +
        ` These read different spans, so a level reading in one and a ${word} one in another can both hold (as when the season turns).` +
        (past ? ` Behind them, ${past.says}.` : ''),
    };
  }
  const heading: Heading = ups.length ? 'up' : downs.length ? 'down' : leading.some((r) => r.heading === 'flat') ? 'flat' : 'no call';
  const lead =
    heading === 'up' ? 'rising' : heading === 'down' ? 'falling' : heading === 'flat' ? 'about level' : 'no reading makes a call';
  const others = leading.filter((r) => r.heading !== heading);
  const same = leading.filter((r) => r.heading === heading);
  return {
    agree: true,
    readings,
    evidence,
    text: `Direction: ${lead} (${says(same)})${
      others.length
        ? `; ${says(others)}${
            heading === 'up' || heading === 'down'
              ? `: a window that ${heading === 'up' ? 'rises' : 'falls'} and one that holds level can both be true, as they read different spans`
              : ', which does not contradict it'
          }`
        : ''
    }${behind(heading)}.`,
  };
}
