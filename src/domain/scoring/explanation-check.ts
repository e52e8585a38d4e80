// What an explanation may not say: a number its own evidence contradicts. Used
// by the property test over every explanation template and by the tests that
// read the insights of the demo, the synthetic world and a replay. Pure.
import type { DimensionScore } from './dimensions.js';
import { signedPct } from './dimension-scores.js';
import { signedChange } from './momentum.js';
import type { DirectionStatement } from './direction.js';
import { ownTerms } from '../research/query-signals.js';
import { RECENT_ABOVE_MEAN } from '../research/series-analysis.js';

/** What an explanation is checked against beyond its own evidence: the idea and its primary phrase. */
export interface ExplanationContext {
  own?: readonly string[];
}

const SIGNAL_DIMENSIONS = new Set(['pain', 'intent', 'whitespace', 'breadth']);

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
export function explanationProblems(dimension: string, d: DimensionScore, context: ExplanationContext = {}): string[] {
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
    if (e.trend_class === 'seasonal' && /^(peaked|declining)/.test(trajectory) && !text.includes('the trend class is seasonal'))
      say(`"${trajectory}" beside a seasonal trend class, unexplained`);
  }
  if (SIGNAL_DIMENSIONS.has(dimension)) {
    // A word of the idea is carried by every search for it: counted, it reads as 100 % of anything.
    const counted = typeof e.modifier_terms === 'string' ? e.modifier_terms.split(' | ') : [];
    for (const term of ownTerms(counted, context.own ?? [])) say(`"${term}", a word of the idea, counted`);
    if (typeof e.left_out === 'string')
      for (const term of e.left_out.split(' | ')) if (!text.includes(`"${term}"`)) say(`"${term}" left out without saying so`);
  }
  if (dimension === 'whitespace' && /a crowded space/.test(text)) {
    const brands = Number(e.brand_share ?? 0) + Number(e.brand_topics ?? 0);
    if (!(brands > 0)) say('"crowded" with no brand or business in the evidence');
  }
  if (dimension === 'durability' && d.score !== null) {
    const recent = Number(e.recent_vs_mean);
    if (recent >= RECENT_ABOVE_MEAN && (/like a fad/.test(text) || e.fad === true || /^(declining|peaked)/i.test(text)))
      say(`a fad or a decline while the recent level is ${recent}× the long-run mean`);
  }
  return problems;
}

const RISE = /\b(rises|rising|up)\b/;
const FALL = /\b(falls|falling|down)\b/;

/** The problems of a direction statement: a rise and a fall asserted at once must be called a disagreement, and only then. */
export function directionProblems(s: DirectionStatement): string[] {
  const problems: string[] = [];
  // The years behind (durability) are context, not a reading of what comes next: a 5-year rise and a fall
  // next month are both true. Among the readings of what comes next, a rise and a fall must be called a disagreement.
  const past = s.readings.find((r) => r.source === 'durability');
  const ahead = s.readings.filter((r) => r.source !== 'durability');
  const leading = ahead.length ? ahead : s.readings;
  const ups = leading.some((r) => r.heading === 'up');
  const downs = leading.some((r) => r.heading === 'down');
  const disagree = /disagree/.test(s.text);
  const aheadText = past && ahead.length ? s.text.replace(past.says, '') : s.text;
  if (ups && downs && !disagree) problems.push(`a rise and a fall without saying they disagree: "${s.text}"`);
  if (!(ups && downs) && disagree) problems.push(`a disagreement where there is none: "${s.text}"`);
  if (!disagree && RISE.test(aheadText) && FALL.test(aheadText)) problems.push(`a rise and a fall asserted at once: "${s.text}"`);
  if (past && ahead.length && !s.text.includes(past.says)) problems.push(`the years behind left unsaid: "${s.text}"`);
  if (s.agree === (ups && downs)) problems.push(`agree=${s.agree} beside its readings`);
  // The years behind say their own change: "falls" beside a gain, or "rises" beside a loss, contradicts its number.
  const change = past ? /\(durability, ([+−±])\d+% from its first fifth/.exec(past.says)?.[1] : undefined;
  if (past && change === '+' && /\bfalls\b/.test(past.says)) problems.push(`"falls" beside a gain: "${past.says}"`);
  if (past && change === '−' && /\brises\b/.test(past.says)) problems.push(`"rises" beside a loss: "${past.says}"`);
  return problems;
}

/** Every problem of an insight's eight explanations. */
export function insightExplanationProblems(dimensions: Record<string, DimensionScore>): string[] {
  return Object.entries(dimensions).flatMap(([name, d]) => explanationProblems(name, d));
}
