// What an explanation may not say: a number its own evidence contradicts. Used
// by the property test over every explanation template and by the tests that
// read the insights of the demo, the synthetic world and a replay. Pure.
import type { DimensionScore } from './dimensions.js';
import { signedPct } from './dimension-scores.js';
import { signedChange } from './momentum.js';

/** Each "+12%", "−46%" or "-564%" of a text, as a signed number of percent. */
function signedPercents(text: string): number[] {
  return [...text.matchAll(/([+−-])(\d+(?:\.\d+)?)%/g)].map((m) => (m[1] === '+' ? 1 : -1) * Number(m[2]));
}

/** Each "N% of …" of a text: a share, which lies between 0 and 100. */
function shares(text: string): number[] {
  return [...text.matchAll(/(?<![+−\d.-])(\d+(?:\.\d+)?)% of\b/g)].map((m) => Number(m[1]));
}

const PREDICTED: Record<string, RegExp> = {
  rising: /predicts next month's interest above this month's/,
  falling: /predicts next month's interest below this month's/,
  'neither rising nor falling': /predicts neither a rise nor a fall/,
};

/** The problems of one dimension's score and explanation against its evidence; none: it reads true. */
export function explanationProblems(dimension: string, d: DimensionScore): string[] {
  const problems: string[] = [];
  const text = d.explanation;
  const say = (p: string) => problems.push(`${dimension}: ${p} in "${text}"`);
  if (d.score !== null && !(d.score >= 0 && d.score <= 1)) say(`score ${d.score} outside 0-1`);
  for (const p of signedPercents(text)) if (p < -100) say(`a change of ${p}% (nothing falls below −100 %)`);
  for (const s of shares(text)) if (s > 100) say(`a share of ${s}%`);
  if (/NaN|Infinity|undefined|null%/.test(text)) say('a number that is not one');
  const e = d.evidence as Record<string, unknown>;
  if (e.interval === 'week' && /\b\d+ days? of data\b/.test(text)) say('days for a weekly series');
  if (dimension === 'momentum' && d.score !== null) {
    const label = String(e.label);
    if (PREDICTED[label] && !PREDICTED[label].test(text)) say(`a prediction other than its label "${label}"`);
    if (!/prediction/i.test(text)) say('momentum not called a prediction');
    if (!/of the time/.test(text)) say('momentum without its hit rate');
    if (/a lift/.test(text) && /last week, [−-]/.test(text)) say('a fall called a lift');
    const change = e.month_vs_two_before_change;
    if (typeof change === 'number' && !text.includes(signedChange(change)))
      say(`the month's change (${change}) not as its evidence has it`);
    const trendClass = String(e.trend_class);
    const contrary =
      (label === 'rising' && (trendClass === 'declining' || trendClass === 'peaked')) ||
      (label === 'falling' && (trendClass === 'rising' || trendClass === 'exploding'));
    if (contrary && !text.includes(`trend class, ${trendClass}`)) say(`a ${label} prediction beside a ${trendClass} class, unexplained`);
  }
  if (dimension === 'durability' && d.score !== null) {
    const trajectory = String(e.trajectory);
    if (!text.toLowerCase().startsWith(trajectory)) say(`a shape other than its trajectory "${trajectory}"`);
    const change = Number(e.change);
    if (!text.includes(`trend ${signedPct(change)}`)) say(`a trend other than its change (${change})`);
  }
  return problems;
}

/** Every problem of an insight's eight explanations. */
export function insightExplanationProblems(dimensions: Record<string, DimensionScore>): string[] {
  return Object.entries(dimensions).flatMap(([name, d]) => explanationProblems(name, d));
}
