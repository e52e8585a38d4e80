// No explanation says a number its evidence contradicts: every template of the
// eight dimensions, fed generated evidence (series of every shape, daily and
// weekly; shares, counts and readings of every kind), is checked by
// explanationProblems (growth never below −100 %, shares within 0-100, a
// prediction called one with its hit rate, labels agreeing with the trend class
// or saying why not, durability's shape and trend as its evidence has them).
// And what issue 47 found (every number agrees with its evidence): no word of
// the idea counted as a signal, "crowded" only with brands or businesses in
// the evidence, no fad or decline while the recent level is above the long-run
// mean, and one statement of direction that says when its readings disagree.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RECENT_ABOVE_MEAN, trajectory, volatility } from '../../src/domain/research/series-analysis.js';
import {
  scoreBreadth,
  scoreDemand,
  scoreDurability,
  scoreIntent,
  scorePain,
  scoreReach,
  scoreWhitespace,
  type SignalInput,
} from '../../src/domain/scoring/dimension-scores.js';
import { directionProblems, explanationProblems } from '../../src/domain/scoring/explanation-check.js';
import { assessMomentum } from '../../src/domain/scoring/momentum.js';
import { familyShares, MODIFIER_FAMILIES, modifierRequest, type FamilyShare } from '../../src/domain/research/modifier-evidence.js';
import {
  COMPETITION_TERMS,
  INTENT_TERMS,
  PAIN_TERMS,
  termShare as shareOfTerms,
  type TermShare,
} from '../../src/domain/research/query-signals.js';
import { topicSignals } from '../../src/domain/research/topic-signals.js';
import { TREND_CLASSES } from '../../src/domain/scoring/trend-class.js';

const RUNS = 400;
const day = (start: number, i: number, step: number) =>
  new Date(Date.UTC(2026, 0, 1) + (start + i * step) * 86_400_000).toISOString().slice(0, 10);

/** Series of every shape: flat, rising, falling, peaked early or late, spiky, mostly zero, as Google rounds them. */
const seriesValues = (min: number, max: number) =>
  fc
    .record({
      n: fc.integer({ min, max }),
      level: fc.double({ min: 0, max: 100, noNaN: true }),
      slope: fc.double({ min: -3, max: 3, noNaN: true }),
      peakAt: fc.double({ min: 0, max: 1, noNaN: true }),
      peak: fc.double({ min: 0, max: 100, noNaN: true }),
      zeros: fc.double({ min: 0, max: 1, noNaN: true }),
      seed: fc.integer(),
    })
    .map(({ n, level, slope, peakAt, peak, zeros, seed }) => {
      let s = seed;
      const rand = () => (s = (s * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
      const peakIndex = Math.floor(peakAt * (n - 1));
      const raw = Array.from({ length: n }, (_, i) =>
        rand() < zeros * 0.5 ? 0 : Math.max(0, level + slope * i + (Math.abs(i - peakIndex) < 3 ? peak : 0) + (rand() - 0.5) * 10),
      );
      const top = Math.max(...raw);
      return raw.map((v) => (top > 0 ? Math.round((v * 100) / top) : 0));
    });

const reading = <T>(arb: fc.Arbitrary<T>) => fc.oneof(arb, fc.constant({ unavailable: 'not read in this case' }));
const termShare: fc.Arbitrary<TermShare> = fc
  .integer({ min: 0, max: 60 })
  .chain((total) =>
    fc
      .integer({ min: 0, max: total })
      .map((matched) => ({ share: total ? matched / total : 0, matched, total, examples: matched ? ['x price'] : [] })),
  );
const familyShare = (family: FamilyShare['family']): fc.Arbitrary<FamilyShare> =>
  fc
    .record({
      ratio: fc.double({ min: 0, max: 3, noNaN: true }),
      phrase_mean: fc.double({ min: 0.5, max: 100, noNaN: true }),
      points: fc.integer({ min: 1, max: 53 }),
    })
    .map(({ ratio, phrase_mean, points }) => ({
      family,
      terms: ['x'],
      share: Math.min(1, ratio),
      ratio,
      ...(ratio > 1.2 ? { contradictory: true } : {}),
      family_mean: ratio * phrase_mean,
      phrase_mean,
      points,
      resolution: 0.5 / phrase_mean,
    }));
const signal = (family: FamilyShare['family']): fc.Arbitrary<SignalInput> =>
  fc.record({ modifiers: reading(familyShare(family)), lists: reading(termShare) });
const topics = fc.record({
  topics: fc.integer({ min: 0, max: 5 }),
  types: fc.array(fc.constantFrom('Topic', 'Company', 'Software', 'Food'), { maxLength: 4 }),
  brand_topics: fc.integer({ min: 0, max: 5 }),
  brand_examples: fc.constant([] as string[]),
});

function check(dimension: string, score: Parameters<typeof explanationProblems>[1], own: string[] = []) {
  const problems = explanationProblems(dimension, score, { own });
  expect(problems, problems.join('\n')).toEqual([]);
}

describe('every explanation template reads true of its evidence', () => {
  it('durability: the 5-year shape and its trend, never below −100 %, and a peak or decline beside a seasonal class explained', () => {
    fc.assert(
      fc.property(seriesValues(26, 262), fc.option(fc.constantFrom(...TREND_CLASSES), { nil: null }), (values, trendClass) => {
        const t = trajectory(values);
        check(
          'durability',
          scoreDurability(
            t ? { ...t, fad: volatility(values)?.fad ?? false, years: Math.round((values.length / 52) * 10) / 10 } : null,
            trendClass,
          ),
        );
      }),
      { numRuns: RUNS },
    );
    // The founder's report: durability "peaked" beside the trend class "seasonal", neither saying how both hold.
    const peaked = { trajectory: 'peaked' as const, change: -0.4, lastVsPeak: 0.3, fad: false, years: 5 };
    expect(explanationProblems('durability', scoreDurability(peaked, 'seasonal'))).toEqual([]);
    expect(scoreDurability(peaked, 'seasonal').explanation).toMatch(
      /the trend class is seasonal: .*the peak is of the years, not of this season/,
    );
    const unexplained = scoreDurability(peaked, 'seasonal');
    expect(explanationProblems('durability', { ...unexplained, explanation: scoreDurability(peaked).explanation }).join()).toMatch(
      /"peaked" beside a seasonal trend class, unexplained/,
    );
  });

  it('momentum: a prediction with its hit rate, its changes as the evidence has them, daily or weekly points', () => {
    fc.assert(
      fc.property(seriesValues(20, 91), fc.constantFrom(1, 7), fc.constantFrom(null, 0.2, 0.7), (values, step, seasonality) => {
        const points = values.map((value, i) => ({ date: day(0, i, step), value }));
        const { momentum } = assessMomentum({ days30: points.slice(-31), days90: points, yearlySeasonality: seasonality });
        check('momentum', momentum);
        if (step === 7) expect(momentum.score).toBeNull();
      }),
      { numRuns: RUNS },
    );
  });

  it('demand, reach: ratios and counts as measured', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 100, noNaN: true }),
        fc.double({ min: 0, max: 100, noNaN: true }),
        fc.integer({ min: 0, max: 60 }).chain((withData) =>
          fc.record({
            countriesWithData: fc.constant(withData),
            countriesWithInterest: fc.integer({ min: 0, max: withData }),
            topShare: fc.double({ min: 0, max: 1, noNaN: true }),
          }),
        ),
        (phraseMean, anchorMean, reach) => {
          check('demand', scoreDemand({ anchor: 'weather', phraseMean, anchorMean }));
          check('reach', scoreReach({ ...reach, topCountry: 'United States', citiesWithInterest: 3, comparedWith: null }));
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('breadth, pain, intent, whitespace: every mix of readings', () => {
    fc.assert(
      fc.property(
        signal('pain'),
        signal('intent'),
        signal('competition'),
        reading(topics),
        reading(termShare),
        reading(
          fc.record({
            queries: fc.integer({ min: 0, max: 50 }),
            topics: fc.integer({ min: 0, max: 25 }),
            vocabulary: fc.integer({ min: 0, max: 80 }),
          }),
        ),
        (pain, intent, competition, autocomplete, brands, lists) => {
          check('pain', scorePain(pain));
          check('intent', scoreIntent(intent));
          check('whitespace', scoreWhitespace({ comparisons: competition, brands: { autocomplete, lists: brands } }));
          check('breadth', scoreBreadth({ lists, autocomplete, modifiers: { unavailable: 'not asked' } }));
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('catches what it is for: a change below −100 % and a prediction that contradicts its label', () => {
    const durability = scoreDurability({ trajectory: 'declining', change: -5.64, lastVsPeak: 0.1, fad: false, years: 5 });
    expect(explanationProblems('durability', durability).join()).toMatch(/−564%|-564%/);
    const { momentum } = assessMomentum({ days30: Array.from({ length: 30 }, (_, i) => ({ date: day(60, i, 1), value: 50 + i })) });
    const relabelled = {
      ...momentum,
      evidence: { ...momentum.evidence, label: momentum.evidence.label === 'rising' ? 'falling' : 'rising' },
    };
    expect(explanationProblems('momentum', relabelled).join()).toMatch(/a prediction other than its label/);
  });

  it('no explanation counts a word of the idea: a signal word of the idea or its phrase is left out, and said so', () => {
    const words = fc.constantFrom(...INTENT_TERMS, ...PAIN_TERMS, ...COMPETITION_TERMS, 'for beginners', 'online');
    fc.assert(
      fc.property(
        fc.constantFrom('accounting', 'meal planner', 'pizza', 'dog walking'),
        fc.constantFrom(...INTENT_TERMS, ...PAIN_TERMS, ...COMPETITION_TERMS),
        fc.boolean(),
        fc.array(words, { minLength: 1, maxLength: 12 }),
        fc.double({ min: 0, max: 0.9, noNaN: true }),
        (head, ownWord, inPhrase, modifiers, shareOfOthers) => {
          // The founder's case: "accounting software" and related queries "… software", "… software vs", "… price".
          const phrase = inPhrase ? `${head} ${ownWord}` : head;
          const idea = `${head} ${ownWord} for small firms`;
          const own = [idea, phrase];
          const queries = modifiers.map((m) => `${phrase} ${m}`);
          for (const [dimension, terms] of [
            ['intent', INTENT_TERMS],
            ['pain', PAIN_TERMS],
            ['whitespace', COMPETITION_TERMS],
          ] as const) {
            const lists = shareOfTerms(queries, terms, own);
            // What may be counted: a query carrying a term that is not a word of the idea.
            const ideaWords = idea.split(' ');
            const ofIdea = (w: string) => ideaWords.some((x) => x === w || x === `${w}s` || x === `${w}es`);
            const otherTerms = terms.filter((t) => !t.split(' ').every(ofIdea));
            const expected = queries.filter((q) => otherTerms.some((t) => ` ${q} `.includes(` ${t} `))).length;
            expect(lists.matched, `${dimension} of ${JSON.stringify(queries)} for "${idea}"`).toBe(expected);
            if ((terms as readonly string[]).includes(ownWord)) expect(lists.left_out).toContain(ownWord);
          }
          // The modifier comparison never asks the phrase with its own word ("accounting software software").
          const request = modifierRequest(phrase, [idea]);
          if (!request) return;
          for (const f of request.families) expect(f.terms, f.keyword).not.toContain(ownWord);
          const columns = request.keywords.map((_, i) => (i === 0 ? 60 : Math.round(60 * shareOfOthers)));
          const answer = {
            points: Array.from({ length: 52 }, (_, w) => ({
              date: day(0, w, 7),
              values: columns,
              hasData: columns.map(() => true),
              isPartial: false,
            })),
          };
          const shares = familyShares(request, answer);
          if (!shares.ok) return;
          const lists = { unavailable: 'not listed' };
          if (shares.shares.intent) check('intent', scoreIntent({ modifiers: shares.shares.intent, lists }), own);
          if (shares.shares.pain) check('pain', scorePain({ modifiers: shares.shares.pain, lists }), own);
          if (shares.shares.competition)
            check(
              'whitespace',
              scoreWhitespace({ comparisons: { modifiers: shares.shares.competition, lists }, brands: { autocomplete: lists, lists } }),
              own,
            );
        },
      ),
      { numRuns: RUNS },
    );
    // And the check itself catches an idea word counted.
    const counted = scoreIntent({
      modifiers: {
        family: 'intent',
        terms: ['software', 'price'],
        share: 0.9,
        family_mean: 54,
        phrase_mean: 60,
        points: 52,
        resolution: 0.01,
      },
      lists: { unavailable: 'not listed' },
    });
    expect(explanationProblems('intent', counted, { own: ['accounting software'] }).join()).toMatch(
      /"software", a word of the idea, counted/,
    );
    expect(MODIFIER_FAMILIES.intent).toContain('software');
  });

  it('"crowded" only where brands or businesses show it: never with 0 brand queries and 0 business topics', () => {
    fc.assert(
      fc.property(
        signal('competition'),
        fc.integer({ min: 0, max: 5 }),
        fc.integer({ min: 0, max: 60 }),
        (comparisons, topicCount, listTotal) => {
          const autocomplete = topicSignals(Array.from({ length: topicCount }, (_, i) => ({ title: `t${i}`, type: 'Topic' })));
          const lists: TermShare = { share: 0, matched: 0, total: listTotal, examples: [] };
          const w = scoreWhitespace({ comparisons, brands: { autocomplete, lists } });
          check('whitespace', w);
          expect(w.explanation).not.toMatch(/a crowded space/);
        },
      ),
      { numRuns: RUNS },
    );
    // The founder's pizza: comparison words everywhere, no brand named by 5 topics.
    const pizza = scoreWhitespace({
      comparisons: { modifiers: { unavailable: 'not asked' }, lists: { share: 0.5, matched: 4, total: 8, examples: ['pizza vs'] } },
      brands: { autocomplete: topicSignals([{ title: 'Pizza', type: 'Dish' }]), lists: { share: 0, matched: 0, total: 8, examples: [] } },
    });
    expect(pizza.explanation).not.toMatch(/crowded space/);
    expect(pizza.explanation).toMatch(/not called crowded/);
  });

  it('no fad and no decline while the recent level is above the long-run mean by a margin', () => {
    fc.assert(
      fc.property(seriesValues(26, 262), (values) => {
        const t = trajectory(values);
        if (!t) return;
        const d = scoreDurability({ ...t, fad: volatility(values)?.fad ?? false, years: Math.round((values.length / 52) * 10) / 10 });
        check('durability', d);
        const recent = values.slice(-Math.max(4, Math.floor(values.length / 10)));
        const recentMean = recent.reduce((a, b) => a + b, 0) / recent.length;
        const mean = values.reduce((a, b) => a + b, 0) / values.length;
        if (recentMean >= RECENT_ABOVE_MEAN * mean) {
          expect(d.explanation, JSON.stringify(values)).not.toMatch(/like a fad|^Declining|^Peaked/);
          expect(d.evidence.fad).toBe(false);
        }
      }),
      { numRuns: RUNS },
    );
    // The founder's case: a year at 90, years near 10, and a recent surge: not "−100 %, a fad".
    const weeks = [...Array(52).fill(90), ...Array(190).fill(10), ...Array(20).fill(72)];
    const t = trajectory(weeks)!;
    const d = scoreDurability({ ...t, fad: volatility(weeks)!.fad, years: 5 });
    expect(d.explanation).not.toMatch(/-100%|like a fad/);
    expect(d.explanation).toMatch(/^Recovering/);
  });

  it('the direction statement never asserts a rise and a fall at once without saying they disagree', async () => {
    const { directionStatement } = await import('../../src/domain/scoring/direction.js');
    fc.assert(
      fc.property(
        seriesValues(60, 91),
        fc.option(fc.constantFrom(...TREND_CLASSES), { nil: null }),
        fc.option(fc.double({ min: -0.6, max: 0.6, noNaN: true }), { nil: null }),
        fc.option(fc.double({ min: -0.6, max: 0.6, noNaN: true }), { nil: null }),
        fc.option(seriesValues(26, 262), { nil: null }),
        (values, trendClass, forecastChange, outlookChange, years) => {
          const points = values.map((value, i) => ({ date: day(0, i, 1), value }));
          const last = values.slice(-7).reduce((a, b) => a + b, 0) / 7;
          const forecast7 =
            forecastChange === null ? null : Array.from({ length: 7 }, () => ({ value: Math.max(0, last * (1 + forecastChange)) }));
          const { momentum } = assessMomentum({ days30: points.slice(-31), days90: points, forecast7 });
          const outlook =
            outlookChange === null
              ? null
              : { withheld: false, horizons: [{ withheld: false, months: 3, value: Math.round(40 * (1 + outlookChange)), recent: 40 }] };
          // Durability's 5 years, read as the research reads them (trajectory, then the score).
          const t = years === null ? null : trajectory(years);
          const durability = t ? scoreDurability({ ...t, fad: false, years: Math.round((years!.length / 52) * 10) / 10 }) : null;
          const s = directionStatement({ momentum, trend_class: trendClass, outlook, durability });
          if (!s) return;
          expect(directionProblems(s), s.text).toEqual([]);
          // Every reading is said, durability's too: a page never shows a heading the statement left out.
          for (const r of s.readings) expect(s.text, r.source).toContain(r.says);
          if (durability?.score !== null && durability !== null) expect(s.readings.map((r) => r.source)).toContain('durability');
          // What comes next leads: the lead never follows the years behind against every reading of the weeks ahead.
          const ahead = s.readings.filter((r) => r.source !== 'durability');
          // No single direction beside a window that holds level (founder review, issue 47: "rising" from the
          // 3-month outlook beside a flat 7-day forecast): each window is said with its own heading.
          const moving = ahead.some((r) => r.heading === 'up' || r.heading === 'down');
          const level = ahead.some((r) => r.heading === 'flat');
          if (s.agree && moving && level) {
            expect(s.text, s.text).toMatch(/^Direction, window by window: /);
            for (const r of ahead.filter((x) => x.heading !== 'no call'))
              expect(s.text, r.source).toMatch(
                new RegExp(`(about level|rising|falling)[^;]* over ${r.window.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(`),
              );
            expect(s.text).toMatch(/different spans/);
            return;
          }
          if (s.agree && ahead.length) {
            const lead = /^Direction: (rising|falling|about level|no reading)/.exec(s.text)?.[1];
            const heading = { rising: 'up', falling: 'down', 'about level': 'flat', 'no reading': 'no call' }[lead!];
            expect(
              ahead.some((r) => r.heading === heading),
              s.text,
            ).toBe(true);
          }
        },
      ),
      { numRuns: RUNS },
    );
    // The founder's page: momentum predicts a rise, the class says peaked, the forecast falls.
    const s = directionStatement({
      momentum: {
        score: 0.8,
        evidence: { label: 'rising', forecast_7d_change: -0.4, forecast_7d_mean: 13.5, forecast_7d_last_week: 22.5 },
        explanation: 'A prediction',
      },
      trend_class: 'peaked',
    })!;
    expect(s.agree).toBe(false);
    expect(s.text).toMatch(/disagree/);
    expect(s.text).toMatch(/momentum predicts interest rises/);
    expect(s.text).toMatch(/7-day forecast falls/);
    // The founder's padel: the trend class "stable" beside a durability "rising". One statement says both, and why.
    const padel = directionStatement({
      momentum: { score: 0.5, evidence: { label: 'stable' }, explanation: 'No call' },
      trend_class: 'stable',
      durability: scoreDurability({
        trajectory: 'rising',
        change: 0.6,
        lastVsPeak: 0.9,
        firstMean: 30,
        lastMean: 48,
        fad: false,
        years: 5,
      }),
    })!;
    expect(padel.agree).toBe(true);
    // The founder's report: the 3-month outlook rises, the 7-day forecast holds level. Not "rising" alone.
    const season = directionStatement({
      momentum: {
        score: 0.5,
        evidence: { label: 'stable', forecast_7d_change: 0.02, forecast_7d_mean: 40.8, forecast_7d_last_week: 40 },
        explanation: 'No call',
      },
      trend_class: null,
      outlook: { withheld: false, horizons: [{ withheld: false, months: 3, value: 56, recent: 40 }] },
    })!;
    expect(directionProblems(season)).toEqual([]);
    expect(season.text).not.toMatch(/^Direction: rising/);
    expect(season.text).toMatch(/about level over the next 7 days \(the 7-day forecast holds level/);
    expect(season.text).toMatch(/rising over the next 3 months \(the 3-month outlook rises/);
    // The founder's camping gear: a 5-year peak whose last fifth is still above its first (+3%) was said to "fall".
    const camping = directionStatement({
      momentum: { score: 0.43, evidence: { label: 'stable', forecast_7d_change: -0.05 }, explanation: 'No call' },
      trend_class: 'seasonal',
      durability: scoreDurability({ trajectory: 'peaked', change: 0.03, lastVsPeak: 0.45, fad: false, years: 5 }),
    })!;
    expect(directionProblems(camping)).toEqual([]);
    expect(camping.text).toMatch(/the 5-year trajectory, peaked, rose to a peak and fell from it over the years behind \(durability, \+3%/);
    expect(padel.text).toMatch(/^Direction: about level \(the trend class, stable/);
    expect(padel.text).toMatch(/the 5-year trajectory, rising, rises over the years behind.*different spans, so both can be true/);
  });
});
