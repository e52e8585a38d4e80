// Each of the 40 research steps on its own, against a small hand-built context:
// the earlier steps' outputs it reads (through JSON, as from Postgres), the run,
// and the Trends plan's answers. What each asserts is what the step computes
// or passes on, chosen so that reading the wrong output, list or series, or
// getting a rule wrong, changes the value. (research-steps.test.ts runs the
// steps in order against a whole fake Google.)
import { describe, expect, it } from 'vitest';
import type {
  MapOutput,
  ModifierComparison,
  RelatedOutput,
  SeriesOutput,
  SignalOutput,
  StepOutputs,
} from '../../src/research/step-contract.js';
import type { ModifierResult, TrendsPlan } from '../../src/research/trends-plan.js';
import { forecast as fitForecast } from '../../src/domain/forecast/forecaster.js';
import { modifierRequest } from '../../src/domain/research/modifier-evidence.js';
import { autocorrelation, volatility } from '../../src/domain/research/series-analysis.js';
import { yearlySeasonality } from '../../src/domain/scoring/trend-class.js';
import { assessMomentum } from '../../src/domain/scoring/momentum.js';
import type { PlaceInterest } from '../../src/domain/research/geography.js';
import type { DimensionScore } from '../../src/domain/scoring/dimensions.js';
import type { InterestByRegion, InterestOverTime, RankedItem } from '../../src/domain/trends/answers.js';
import { runStep, stepContext, summarize } from '../support/steps-harness.js';
import { TrendsFailedError } from '../../src/providers/gateway.js';

type Plan = Partial<Omit<TrendsPlan, 'name'>>;

const day = (i: number) => new Date(Date.UTC(2026, 0, 1 + i)).toISOString().slice(0, 10);

/** A recorded series (steps 7-10): every point with data, none partial, unless said. */
function series(values: number[], options: { partial?: boolean[]; has_data?: boolean[]; keyword?: string } = {}): SeriesOutput {
  return {
    keyword: options.keyword ?? 'meal planner',
    timeframe: '90d',
    dates: values.map((_, i) => day(i)),
    values,
    partial: options.partial ?? values.map(() => false),
    has_data: options.has_data ?? values.map(() => true),
    provenance: null,
  };
}

const primary = (phrase = 'meal planner', secondary: string[] = []): Pick<StepOutputs, 'choose_primary'> => ({
  choose_primary: { primary: phrase, secondary, reason: 'first phrase (no autocomplete topics)' },
});

const related = (labels: string[], served: RelatedOutput['served'] = 'listed', breakout: string[] = []): RelatedOutput => ({
  keyword: 'meal planner',
  served,
  items: labels.map((label, i) => ({
    label,
    value: 100 - i,
    breakout: breakout.includes(label),
    formattedValue: breakout.includes(label) ? 'Breakout' : String(100 - i),
  })),
  provenance: null,
});

const relatedLists = (
  queries: { top: string[]; rising?: string[] },
  topics: { top: string[]; rising?: string[] },
  served: RelatedOutput['served'] = 'listed',
) => ({
  related_queries_top: related(queries.top, served),
  related_queries_rising: related(queries.rising ?? [], served),
  related_topics_top: related(topics.top, served),
  related_topics_rising: related(topics.rising ?? [], served),
});

/** The modifier comparison served: the phrase's mean and each family's, every week the same. */
function modifiersServed(phrase: string, means: { phrase: number; pain: number; intent: number; competition: number }): ModifierResult {
  const request = modifierRequest(phrase)!;
  const answer: InterestOverTime = {
    kind: 'interestOverTime',
    keywords: request.keywords,
    points: Array.from({ length: 12 }, (_, i) => ({
      date: day(i * 7),
      values: [means.phrase, ...request.families.map((f) => means[f.family])],
      hasData: request.keywords.map(() => true),
      isPartial: false,
    })),
  };
  return { request, outcome: 'served', answer };
}

/** An answer that records the arguments it was asked with. */
const asks =
  <A extends unknown[], R>(calls: A[], answer: (...args: NoInfer<A>) => R) =>
  (...args: A) => {
    calls.push(args);
    return Promise.resolve(answer(...args));
  };

const score = (value: number | null, strength?: number): DimensionScore => ({
  score: value,
  evidence: {},
  explanation: 'hand-built',
  ...(strength === undefined ? {} : { strength }),
});

describe('steps 1-6: the idea, its phrases, the primary phrase, the category, duplicates', () => {
  it('1 normalize_idea: collapses spaces, lowercases and strips accents for the key and words', async () => {
    const o = await runStep('normalize_idea', stepContext({}, { idea: '  Café  Finder for   Dog-Owners ' }));
    expect(o).toEqual({
      text: 'Café Finder for Dog-Owners',
      key: 'cafe finder for dog owners',
      words: ['cafe', 'finder', 'for', 'dog', 'owners'],
    });
    expect(summarize('normalize_idea', o)).toBe('"cafe finder for dog owners" (5 words)');
  });

  it('2 extract_phrases: hints first, then runs of subject words within a part of the idea, by the share of the idea they cover', async () => {
    const ctx = stepContext({}, { idea: 'AI meal planner for busy parents (simulated demo)', hints: ['Meal Prep'] });
    const o = await runStep('extract_phrases', ctx);
    expect(o.phrases.slice(0, 2)).toEqual(['meal prep', 'meal planner']);
    // Never across "for" ("planner busy"), never from an aside ("parents simulated"). "AI" before a noun says which
    // kind, as "vegan" does (2026-11-28, founder review): "ai meal planner" is a candidate, "ai" alone is not.
    expect(o.phrases).not.toContain('planner busy');
    expect(o.phrases.some((p) => /simulated|demo/.test(p))).toBe(false);
    expect(o.phrases).not.toContain('ai');
    expect(o.candidates![1]).toEqual({ phrase: 'meal planner', coverage: 0.709, names_product: true, prior: 1.109 });
    expect(summarize('extract_phrases', o)).toMatch(/^meal prep \(operator keyword\), meal planner \(covers 71%\), /);
  });

  it('3 autocomplete_phrases: asks the plan for the phrases, saying whether an operator hint decides', async () => {
    const calls: Array<[string[], boolean]> = [];
    const autocomplete = asks(calls, () => ({
      topics: { 'meal planner': [{ mid: '/m/1', title: 'Meal planning', type: 'Topic' }] },
      not_asked: ['busy parents'],
    }));
    const outputs = { extract_phrases: { phrases: ['meal planner', 'busy parents'] } };
    const o = await runStep('autocomplete_phrases', stepContext(outputs, { plan: { autocomplete } }));
    await runStep('autocomplete_phrases', stepContext(outputs, { plan: { autocomplete }, hints: ['meal planner'] }));
    expect(calls).toEqual([
      [['meal planner', 'busy parents'], false],
      [['meal planner', 'busy parents'], true],
    ]);
    expect(o.topics['meal planner']![0]!.title).toBe('Meal planning');
    expect(summarize('autocomplete_phrases', o)).toBe('meal planner → Meal planning; not asked: busy parents');
  });

  describe('4 choose_primary', () => {
    const idea = 'Plant care reminder app for renters';
    const topic = { mid: '/m/pc', title: 'Houseplant care', type: 'Topic' };
    const measureWith = (means: Record<string, number>, asked: string[][] = []) => ({
      measure: async (phrases: string[], anchor: string) => {
        asked.push([...phrases, anchor]);
        const known = Object.fromEntries(phrases.map((p) => [p, means[p] ?? 0]));
        return { keywords: phrases, means: known, anchorMean: 40, timeframe: '12m' as const, provenance: null };
      },
      autocomplete: async (phrases: string[]) => ({ topics: Object.fromEntries(phrases.map((p) => [p, [topic]])), not_asked: [] }),
    });
    const ctx = async (plan: Partial<Omit<TrendsPlan, 'name'>>, hints: string[] = []) => {
      const extracted = await runStep('extract_phrases', stepContext({}, { idea, hints }));
      const autocomplete = { topics: { [extracted.phrases[0]!]: [] }, not_asked: extracted.phrases.slice(1) };
      return stepContext({ extract_phrases: extracted, autocomplete_phrases: autocomplete }, { idea, hints, plan });
    };

    it('measures the four best-covering phrases in one comparison and takes the phrase that says the idea and is searched', async () => {
      const asked: string[][] = [];
      const plan = measureWith({ 'plant care': 20, 'care reminder': 0.4, 'plant care reminder': 0.2, plant: 90 }, asked);
      const o = await runStep('choose_primary', await ctx(plan));
      expect(asked).toEqual([['plant care', 'plant care reminder', 'care reminder', 'plant', 'weather']]);
      expect(o.primary).toBe('plant care');
      // The comparison of steps 11-12 asks the measured phrases again, in the same order (one trends job).
      expect(o.secondary.slice(0, 3)).toEqual(['plant care reminder', 'care reminder', 'plant']);
      expect(o.measured).toMatchObject({ keywords: ['plant care', 'plant care reminder', 'care reminder', 'plant'], anchor: 'weather' });
      expect(o.reason).toBe(
        'covers 74% of the idea and names its subject, searched 20 (popularity 0.67); runner-up "plant care reminder" covers 87% of the idea, not measurably searched',
      );
      expect(o.candidates!.map((c) => c.phrase).slice(0, 4)).toEqual(['plant care', 'plant care reminder', 'care reminder', 'plant']);
      // Step 3 stopped at the first phrase: the chosen phrase's topics are read from there (nothing more asked).
      expect(o.primary_topics).toBeUndefined();
      expect(summarize('choose_primary', o)).toMatch(/^"plant care" \(covers 74%/);
    });

    it('never takes a phrase nobody measurably searches while another is searched; asks autocomplete for a phrase step 3 did not', async () => {
      const o = await runStep('choose_primary', await ctx(measureWith({ 'plant care': 0.5, 'care reminder': 2, plant: 80 })));
      expect(o.primary).toBe('care reminder');
      expect(o.primary_topics).toEqual([topic]);
    });

    it('an operator hint wins without a measurement; a measurement that cannot be had leaves coverage to decide, and says so', async () => {
      const hinted = await runStep('choose_primary', await ctx({ autocomplete: measureWith({}).autocomplete }, ['Houseplant care']));
      expect(hinted).toMatchObject({ primary: 'houseplant care', reason: 'operator keyword', measured: null });
      const failing = { measure: () => Promise.reject(new TrendsFailedError('replay has no recording of it', true)) };
      const o = await runStep('choose_primary', await ctx(failing));
      expect(o.primary).toBe('plant care');
      expect(o.reason).toMatch(/popularity not measured: replay has no recording of it/);
    });

    it('fails the run when the idea gave no phrase at all, and says what to do', async () => {
      const empty = stepContext({ extract_phrases: { phrases: [], candidates: [] }, autocomplete_phrases: { topics: {}, not_asked: [] } });
      await expect(runStep('choose_primary', empty)).rejects.toThrow(/no search phrase .* pass --keyword/);
    });
  });

  it("5 classify_category: files the idea in Google's category tree from the idea, its phrases and the autocomplete topics' types", async () => {
    const outputs = { extract_phrases: { phrases: ['dog walking', 'dog'] }, autocomplete_phrases: { topics: {}, not_asked: [] } };
    const withoutTopics = await runStep('classify_category', stepContext(outputs, { idea: 'Dog walking for busy owners' }));
    expect(withoutTopics).toMatchObject({ category: 'pets-animals', google_id: 66 });
    const topics = {
      dog: [
        { mid: '/m/1', title: 'Pizza Hut', type: 'Restaurant chain' },
        { mid: '/m/2', title: 'Bakery', type: 'Dish' },
      ],
    };
    const withTopics = await runStep(
      'classify_category',
      stepContext({ ...outputs, autocomplete_phrases: { topics, not_asked: [] } }, { idea: 'Dog walking for busy owners' }),
    );
    // Topic types weigh three times the idea's words: what Google knows of the phrase outweighs how the idea is worded.
    expect(withTopics.category).toBe('food-drink');
    expect(withTopics.matched.some((m) => m.startsWith('topic-type:'))).toBe(true);
    expect(summarize('classify_category', withTopics)).toMatch(/^food-drink \(matched: /);
  });

  describe('6 detect_duplicate', () => {
    const outputs = { normalize_idea: { text: 'Dog walking', key: 'dog walking', words: ['dog', 'walking'] }, ...primary('dog walk') };

    it('looks the idea key and the primary phrase up, and creates when nothing matches', async () => {
      const calls: Array<[string, string]> = [];
      const o = await runStep('detect_duplicate', stepContext(outputs, { findExistingInsight: asks(calls, () => undefined) }));
      expect(calls).toEqual([['dog walking', 'dog walk']]);
      expect(o).toEqual({ existing_insight_id: null, matched_on: null, action: 'create' });
      expect(summarize('detect_duplicate', o)).toBe('new idea');
    });

    it('updates the insight of the same idea; creates beside one that only shares the phrase', async () => {
      const same = await runStep(
        'detect_duplicate',
        stepContext(outputs, { findExistingInsight: async () => ({ id: 'insight_1', idea: 'Dog walking', sameIdea: true }) }),
      );
      expect(same).toEqual({ existing_insight_id: 'insight_1', matched_on: 'idea', action: 'update' });
      const other = await runStep(
        'detect_duplicate',
        stepContext(outputs, { findExistingInsight: async () => ({ id: 'insight_2', idea: 'Dog walk tracker', sameIdea: false }) }),
      );
      expect(other).toEqual({
        existing_insight_id: 'insight_2',
        matched_on: 'primary_keyword',
        similar_idea: 'Dog walk tracker',
        action: 'create (a different idea on the same phrase)',
      });
      expect(summarize('detect_duplicate', other)).toBe('primary_keyword matches insight_2: create (a different idea on the same phrase)');
    });
  });
});

describe('steps 7-12: the series and the comparisons', () => {
  it.each([
    ['interest_30d', '30d'],
    ['interest_90d', '90d'],
    ['interest_12m', '12m'],
    ['interest_5y', '5y'],
  ] as const)('%s asks the plan for the primary phrase over %s and records its first column', async (name, timeframe) => {
    const calls: Array<[string, string]> = [];
    const answer: InterestOverTime = {
      kind: 'interestOverTime',
      keywords: ['meal planner'],
      points: [
        { date: '2026-01-01', values: [40], hasData: [true], isPartial: false },
        { date: '2026-01-02', values: [0], hasData: [false], isPartial: true },
      ],
    };
    const seriesAnswer = asks(calls, () => ({ answer, derived_from: 'the last 30 days of 90d' }));
    const o = await runStep(name, stepContext(primary(), { plan: { series: seriesAnswer } }));
    expect(calls).toEqual([['meal planner', timeframe]]);
    expect(o).toEqual({
      keyword: 'meal planner',
      timeframe,
      derived_from: 'the last 30 days of 90d',
      dates: ['2026-01-01', '2026-01-02'],
      values: [40, 0],
      partial: [false, true],
      has_data: [true, false],
      provenance: null,
    });
    expect(summarize(name, o)).toBe('2 points for "meal planner", 2026-01-01 to 2026-01-02, mean 20');
  });

  describe('11 compare_secondary', () => {
    it('records that there is nothing to compare without secondary phrases (and asks nothing)', async () => {
      const o = await runStep('compare_secondary', stepContext(primary('dog')));
      expect(o).toEqual({ keywords: ['dog'], means: { dog: null }, note: 'no secondary phrases to compare' });
      expect(summarize('compare_secondary', o)).toBe('no secondary phrases to compare');
    });

    it("asks the comparison with the run's anchor and records the secondary phrases' means", async () => {
      const calls: Array<[string, string[], string]> = [];
      const comparison = asks(calls, () => ({
        secondary: { keywords: ['dog', 'dog walking'], timeframe: '12m' as const, means: { dog: 50, 'dog walking': 20 } },
        anchor: { phraseMean: 50, anchorMean: 25, points: 52, provenance: null },
      }));
      const o = await runStep('compare_secondary', stepContext(primary('dog', ['dog walking']), { anchor: 'bagel', plan: { comparison } }));
      expect(calls).toEqual([['dog', ['dog walking'], 'bagel']]);
      expect(o).toEqual({ keywords: ['dog', 'dog walking'], timeframe: '12m', means: { dog: 50, 'dog walking': 20 } });
      expect(summarize('compare_secondary', o)).toBe('dog 50, dog walking 20 (12m)');
    });
  });

  it("12 compare_anchor: records the anchor term with the phrase's and the anchor's means from the same comparison", async () => {
    const calls: Array<[string, string[], string]> = [];
    const comparison = asks(calls, () => ({
      secondary: { keywords: ['dog'], timeframe: '12m' as const, means: { dog: 50 } },
      anchor: { phraseMean: 12.5, anchorMean: 50, points: 52, provenance: null },
    }));
    const o = await runStep('compare_anchor', stepContext(primary('dog', ['dog walking']), { anchor: 'bagel', plan: { comparison } }));
    expect(calls).toEqual([['dog', ['dog walking'], 'bagel']]);
    // No provider of this plan has search volume: said so beside the relative means.
    expect(o).toEqual({
      anchor: 'bagel',
      phraseMean: 12.5,
      anchorMean: 50,
      points: 52,
      provenance: null,
      volume: {
        outcome: 'not_available',
        reason: 'no provider of this test has search volume',
        geo: '',
        location: null,
        language: '',
        keywords: [],
        provenance: null,
      },
    });
    expect(summarize('compare_anchor', o)).toBe(
      'mean 12.5 vs "bagel" 50; monthly searches not available: no provider of this test has search volume',
    );
  });
});

describe('steps 13-16: related lists', () => {
  const ranked = (label: string, value: number, topic?: string): RankedItem => ({
    label,
    value,
    breakout: value >= 5000,
    formattedValue: value >= 5000 ? 'Breakout' : String(value),
    ...(topic ? { topic: { mid: topic, type: 'Topic' } } : {}),
  });
  const lists = {
    relatedQueries: { top: [ranked('meal planner app', 100)], rising: [ranked('ai meal planner', 5000)] },
    relatedTopics: { top: [ranked('Meal planning', 100, '/m/mp')], rising: [ranked('Meal prep', 120, '/m/prep')] },
  };

  it.each([
    ['related_queries_top', 'relatedQueries', { label: 'meal planner app', value: 100, breakout: false, formattedValue: '100' }],
    ['related_queries_rising', 'relatedQueries', { label: 'ai meal planner', value: 5000, breakout: true, formattedValue: 'Breakout' }],
    ['related_topics_top', 'relatedTopics', { label: 'Meal planning', value: 100, breakout: false, formattedValue: '100', mid: '/m/mp' }],
    ['related_topics_rising', 'relatedTopics', { label: 'Meal prep', value: 120, breakout: false, formattedValue: '120', mid: '/m/prep' }],
  ] as const)('%s records its own list of the %s answer (with topic ids)', async (name, kind, item) => {
    const calls: Array<[string, 'relatedQueries' | 'relatedTopics']> = [];
    const relatedAnswer = asks(calls, (_keyword: string, k: 'relatedQueries' | 'relatedTopics') => ({
      served: 'listed' as const,
      list: { kind: k, ...lists[k] },
    }));
    const o = await runStep(name, stepContext(primary(), { plan: { related: relatedAnswer } }));
    expect(calls).toEqual([['meal planner', kind]]);
    expect(o).toEqual({ keyword: 'meal planner', served: 'listed', items: [item], provenance: null });
    expect(summarize(name, o)).toBe(`1: ${item.label}`);
  });

  it('records what Google served when there is no list, with the reason', async () => {
    const failed = await runStep(
      'related_queries_top',
      stepContext(primary(), {
        plan: { related: async () => ({ served: 'failed', list: null, reason: 'Google refused the request (400)' }) },
      }),
    );
    expect(failed).toEqual({
      keyword: 'meal planner',
      served: 'failed',
      reason: 'Google refused the request (400)',
      items: [],
      provenance: null,
    });
    expect(summarize('related_queries_top', failed)).toBe('not read: Google refused the request (400)');
    const empty = await runStep(
      'related_topics_rising',
      stepContext(primary(), { plan: { related: async (_k, kind) => ({ served: 'empty', list: { kind, top: [], rising: [] } }) } }),
    );
    expect(empty).toMatchObject({ served: 'empty', items: [] });
    expect(summarize('related_topics_rising', empty)).toMatch(/^empty: Google served no list/);
  });
});

describe('steps 17-18: maps', () => {
  const region = (geoCode: string, geoName: string, values: number[], hasData = true) => ({
    geoCode,
    geoName,
    values,
    hasData: values.map(() => hasData),
  });

  it('17 interest_by_country: against the anchor when step 12 found the two within 50x; shares become relative strengths', async () => {
    const calls: Array<[string[], string]> = [];
    const answer = (keywords: string[]): InterestByRegion => ({
      kind: 'interestByRegion',
      keywords,
      regions: [region('US', 'United States', [20, 80]), region('GB', 'United Kingdom', [50, 50]), region('FR', 'France', [0, 0], false)],
    });
    const map = asks(calls, (keywords: string[], _resolution: string) => answer(keywords));
    const ctx = stepContext(
      { ...primary('dog'), compare_anchor: { anchor: 'bagel', phraseMean: 10, anchorMean: 40, points: 52, provenance: null } },
      { plan: { map } },
    );
    const o = await runStep('interest_by_country', ctx);
    expect(calls).toEqual([[['dog', 'bagel'], 'COUNTRY']]);
    expect(o).toMatchObject({
      keyword: 'dog',
      compared_with: 'bagel',
      reason: 'against "bagel": within 50× of it over 12 months (10 vs 40)',
      // GB: 50/50 = 1, the best; US: 20/80 = 0.25 of it.
      places: [
        { code: 'GB', relative: 100, share: 50 },
        { code: 'US', relative: 25, share: 20 },
      ],
      without_data: 1,
    });
    expect(summarize('interest_by_country', o)).toBe(
      '2 countries with data (shares vs "bagel"); strongest: United Kingdom 50%, United States 20%',
    );
  });

  it("17 interest_by_country: the phrase's own map when the anchor is more than 50x apart", async () => {
    const calls: Array<[string[], string]> = [];
    const map = asks(calls, (keywords: string[], _resolution: string): InterestByRegion => ({
      kind: 'interestByRegion',
      keywords,
      regions: [region('US', 'United States', [100]), region('DE', 'Germany', [30])],
    }));
    const ctx = stepContext(
      { ...primary('dog'), compare_anchor: { anchor: 'bagel', phraseMean: 1, anchorMean: 80, points: 52, provenance: null } },
      { plan: { map } },
    );
    const o = await runStep('interest_by_country', ctx);
    expect(calls).toEqual([[['dog'], 'COUNTRY']]);
    expect(o).toMatchObject({
      compared_with: null,
      reason: `the phrase's own map: "bagel" is not within 50× of it (1 vs 80)`,
      places: [
        { code: 'US', relative: 100, share: null },
        { code: 'DE', relative: 30 },
      ],
    });
    expect(summarize('interest_by_country', o)).toBe('2 countries with data; strongest: United States 100, Germany 30');
  });

  it('18 interest_by_city: the same kind of map as step 17, by city, the 25 strongest kept', async () => {
    const calls: Array<[string[], string]> = [];
    const cities = Array.from({ length: 30 }, (_, i) => region('', `City ${i}`, [60 - i, 40]));
    const map = asks(calls, (keywords: string[], _resolution: string): InterestByRegion => ({
      kind: 'interestByRegion',
      keywords,
      regions: cities,
    }));
    const country: MapOutput = {
      keyword: 'dog',
      compared_with: 'bagel',
      reason: 'r',
      resolution: 'COUNTRY',
      places: [],
      without_data: 0,
      provenance: null,
    };
    const o = await runStep('interest_by_city', stepContext({ ...primary('dog'), interest_by_country: country }, { plan: { map } }));
    expect(calls).toEqual([[['dog', 'bagel'], 'CITY']]);
    expect(o.places).toHaveLength(25);
    expect(o.places[0]).toMatchObject({ name: 'City 0', share: 60, relative: 100 });
    expect(o.places.at(-1)!.name).toBe('City 24');
    expect(o).toMatchObject({ compared_with: 'bagel', reason: 'the same map as step interest_by_country, by city', without_data: 0 });
  });
});

describe('steps 19-25: the series read', () => {
  it('19 clean_series: per series, the points kept, the trailing partial dropped, points without data and the zero share', async () => {
    const thirty = series([0, 10, 20, 30, 5], { has_data: [true, false, true, true, true], partial: [false, false, false, false, true] });
    const o = await runStep(
      'clean_series',
      stepContext({ interest_30d: thirty, interest_90d: series([1, 2, 3]), interest_12m: series([0, 0, 4, 4]), interest_5y: series([7]) }),
    );
    expect(o).toEqual({
      interest_30d: { points: 3, dropped_partial: true, missing: 1, zero_share: 0.333 },
      interest_90d: { points: 3, dropped_partial: false, missing: 0, zero_share: 0 },
      interest_12m: { points: 4, dropped_partial: false, missing: 0, zero_share: 0.5 },
      interest_5y: { points: 1, dropped_partial: false, missing: 0, zero_share: 0 },
    });
    expect(summarize('clean_series', o)).toBe('30d: 3 pts, 33% zero; 90d: 3 pts, 0% zero; 12m: 4 pts, 50% zero; 5y: 1 pts, 0% zero');
  });

  it('20 growth: the change across each window on its least-squares line, 30 days and 90 days each from its own series', async () => {
    // 10, 12 … 68: the line runs from 10 to 68, +580 %. The 90 days are flat.
    const rising = series(Array.from({ length: 30 }, (_, i) => 10 + 2 * i));
    const o = await runStep('growth', stepContext({ interest_30d: rising, interest_90d: series(Array(90).fill(50)) }));
    expect(o).toEqual({ growth_30d: 5.8, growth_90d: 0 });
    expect(summarize('growth', o)).toBe('30d +580%, 90d +0%');
    // Interest that peaked early and fell to nothing: the line ends below zero, the change at −100 % (it read −564 % as slope × length / mean).
    const fell = series([...Array.from({ length: 10 }, () => 90), ...Array.from({ length: 20 }, () => 0)]);
    expect((await runStep('growth', stepContext({ interest_30d: fell, interest_90d: fell }))).growth_30d).toBe(-1);
  });

  it('21 acceleration: the 90 days, second half against the first', async () => {
    // Flat at 20, then 20, 22 … 46 (slope 2 over a mean of 33): 0.061 a day faster.
    const o = await runStep(
      'acceleration',
      stepContext({ interest_90d: series([...Array(14).fill(20), ...Array.from({ length: 14 }, (_, i) => 20 + 2 * i)]) }),
    );
    expect(o).toEqual({ acceleration_90d: 0.061 });
    expect(summarize('acceleration', o)).toBe('slope change 0.061');
  });

  it('22 trajectory: the 5-year shape and how many weeks it read', async () => {
    // 10 … 39: the line runs from 10 to 39 (+290 %), peak at the end, the last 4 weeks at 37.5/39 of it.
    const o = await runStep('trajectory', stepContext({ interest_5y: series(Array.from({ length: 30 }, (_, i) => 10 + i)) }));
    // The last fifth (6 weeks, mean 36.5) against the first (12.5): +192 %; the last 4 weeks at 37.5, 1.53× the mean of 24.5.
    expect(o).toEqual({
      five_year: {
        trajectory: 'rising',
        change: 1.92,
        peakPosition: 1,
        lastVsPeak: 0.962,
        firstMean: 12.5,
        lastMean: 36.5,
        recentVsMean: 1.531,
        recentPoints: 4,
      },
      points: 30,
    });
    expect(summarize('trajectory', o)).toBe('rising (+192%)');
    expect(await runStep('trajectory', stepContext({ interest_5y: series([5, 6, 7]) }))).toEqual({ five_year: null, points: 3 });
  });

  it('23 seasonality: weekly from the 90 days, yearly (with and without trend) from the 5 years', async () => {
    const ninety = Array.from({ length: 28 }, (_, i) => (i % 7 >= 5 ? 50 : 10)); // weekends high
    const fiveYears = Array.from({ length: 208 }, (_, i) => Math.round(50 + 30 * Math.sin((2 * Math.PI * i) / 52) + i / 10)); // a yearly wave on a slow rise
    const o = await runStep('seasonality', stepContext({ interest_90d: series(ninety), interest_5y: series(fiveYears) }));
    expect(o).toEqual({
      weekly_acf_lag7: autocorrelation(ninety, 7),
      yearly_acf_lag52: autocorrelation(fiveYears, 52),
      yearly_seasonality: yearlySeasonality(fiveYears),
    });
    expect(o.weekly_acf_lag7).toBeGreaterThan(0.7);
    expect(o.yearly_seasonality).toBeGreaterThan(0.9);
    // The 90 days are too short for a yearly lag, the 5 years' weekly lag is weaker: mixing them up shows.
    expect(autocorrelation(ninety, 52)).toBeNull();
    expect(autocorrelation(fiveYears, 7)).toBeLessThan(o.weekly_acf_lag7!);
  });

  it('24 volatility: the 90 days and the 5 years each; one burst over a low baseline reads as a fad', async () => {
    const calm = Array.from({ length: 90 }, (_, i) => 50 + (i % 2));
    // The burst has passed (the last weeks are back at 5): a burst still under way is not yet a fad.
    const burst = [...Array(25).fill(5), 100, ...Array(26).fill(5)];
    const o = await runStep('volatility', stepContext({ interest_90d: series(calm), interest_5y: series(burst) }));
    expect(o).toEqual({ days_90: volatility(calm), years_5: volatility(burst) });
    expect(o.days_90).toMatchObject({ fad: false, spikiness: 1.01 });
    expect(o.years_5).toMatchObject({ fad: true, spikiness: 20 });
    expect(summarize('volatility', o)).toBe(`cv ${o.days_90!.cv}, fad-like spikes`);
  });

  it("25 breakout: Google's breakout rising queries, and the last week of the 90 days against the rest", async () => {
    const rising = related(['ai meal planner', 'meal planner free', 'mealime'], 'listed', ['ai meal planner', 'mealime']);
    // 14 days alternating 9 and 11 (mean 10, sd 1), then a week at 20: z = 10.
    const ninety = [...Array.from({ length: 14 }, (_, i) => (i % 2 ? 11 : 9)), ...Array(7).fill(20)];
    const o = await runStep('breakout', stepContext({ related_queries_rising: rising, interest_90d: series(ninety) }));
    expect(o).toEqual({
      rising_queries: 'listed',
      breakout_queries: ['ai meal planner', 'mealime'],
      series: { zScore: 10, breakout: true },
    });
    expect(summarize('breakout', o)).toBe('2 breakout queries; series z 10 (breakout)');
    const empty = await runStep(
      'breakout',
      stepContext({ related_queries_rising: related([], 'empty'), interest_90d: series(Array(21).fill(10)) }),
    );
    expect(empty).toEqual({ rising_queries: 'empty', breakout_queries: [], series: { zScore: 0, breakout: false } });
  });
});

describe('steps 26-29: breadth, pain, intent and competition', () => {
  const phrase = 'meal planner';
  const queries = {
    top: ['meal planner app', 'how to meal plan', 'mealime vs meal planner'],
    rising: ['meal planner app', 'cheap meal planner'],
  };
  const topics = { top: ['Meal planning', 'Recipe'], rising: ['Mealime'] };
  const autocomplete = {
    topics: {
      [phrase]: [
        { mid: '/m/1', title: 'Mealime', type: 'Software' },
        { mid: '/m/2', title: 'Meal planning', type: 'Topic' },
      ],
    },
    not_asked: [],
  };
  const served = modifiersServed(phrase, { phrase: 40, pain: 4, intent: 10, competition: 0 });
  const context = (plan: Plan = { modifiers: async () => served }, lists = relatedLists(queries, topics)) =>
    stepContext({ ...primary(phrase), ...lists, autocomplete_phrases: autocomplete }, { plan });

  it('26 demand_breadth: distinct listed queries and topics with their words, autocomplete topics, and how many families register', async () => {
    const o = await runStep('demand_breadth', context());
    if (!('modifier_comparison' in o)) throw new Error('expected the current shape');
    // Queries: 4 distinct of 5 listed; topics 3; words beyond "meal planner": app, how, plan, mealime, cheap, planning, recipe.
    expect(o.lists).toEqual({ queries: 4, topics: 3, vocabulary: 7 });
    expect(o.autocomplete).toEqual({ topics: 2, types: ['Software', 'Topic'], brand_topics: 1, brand_examples: ['Mealime (Software)'] });
    expect(o.modifiers).toEqual({ registering: 2, families: 3, phrase_mean: 40 });
    expect(o.modifier_comparison).toMatchObject({
      outcome: 'served',
      keywords: served.request!.keywords,
      shares: { pain: { share: 0.1 }, intent: { share: 0.25 }, competition: { share: 0 } },
    });
    expect(summarize('demand_breadth', o)).toBe(
      'related lists: 4 queries, 3 topics, 7 distinct words; autocomplete: 2 topics of 2 types; modifiers: 2 of 3 families searched',
    );
  });

  it('26 demand_breadth: says why each source is missing (lists served empty, comparison not recorded)', async () => {
    const o = await runStep(
      'demand_breadth',
      context(
        { modifiers: async () => ({ request: null, outcome: 'not_recorded', reason: 'replay has no recording' }) },
        relatedLists({ top: [] }, { top: [] }, 'empty'),
      ),
    );
    if (!('modifier_comparison' in o)) throw new Error('expected the current shape');
    expect(o.lists).toEqual({ unavailable: 'Google served them empty (its answer to automated clients since 2024-08-20)' });
    expect(o.modifiers).toEqual({ unavailable: 'replay has no recording of it (it never invents one)' });
    expect(o.modifier_comparison).toEqual({
      outcome: 'not_recorded',
      reason: 'replay has no recording',
      keywords: [phrase],
      provenance: null,
    });
  });

  it.each([
    ['pain_signals', 'pain', 0.1, { matched: 1, examples: ['how to meal plan'] }],
    ['buyer_intent', 'intent', 0.25, { matched: 2, examples: ['meal planner app', 'cheap meal planner'] }],
  ] as const)('%s: the %s family share of the comparison and the listed queries with its words', async (name, family, share, lists) => {
    const o = (await runStep(name, context())) as SignalOutput;
    expect(o.modifiers).toMatchObject({ family, share, phrase_mean: 40, points: 12 });
    expect(o.lists).toEqual({ share: Math.round((lists.matched / 4) * 1000) / 1000, total: 4, ...lists });
    // The comparison is recorded without the other families' shares.
    expect(o.modifier_comparison).toEqual({ outcome: 'served', keywords: served.request!.keywords, provenance: null });
    expect(summarize(name, o)).toBe(
      `modifier comparison: ${share * 100}% of the phrase's searches; related queries: ${lists.matched} of 4 related queries`,
    );
  });

  it('27 pain_signals: a family Google rounds to 0 reads as under its resolution; an unread source says why', async () => {
    const none = modifiersServed(phrase, { phrase: 40, pain: 0, intent: 10, competition: 0 });
    const o = (await runStep(
      'pain_signals',
      context({ modifiers: async () => none }, relatedLists({ top: [] }, { top: [] }, 'not_recorded')),
    )) as SignalOutput;
    expect(o.modifiers).toMatchObject({ share: 0, resolution: 0.0125 });
    expect(o.lists).toEqual({ unavailable: 'replay has no recording of them' });
    expect(summarize('pain_signals', o)).toBe(
      "modifier comparison: under 1.3% of the phrase's searches; related queries: not read (replay has no recording of them)",
    );
  });

  it('29 competition_signals: comparison searches from both sources, brands from autocomplete and listed queries', async () => {
    const o = await runStep('competition_signals', context());
    if (!('modifier_comparison' in o)) throw new Error('expected the current shape');
    expect(o.comparisons.modifiers).toMatchObject({ family: 'competition', share: 0 });
    expect(o.comparisons.lists).toEqual({ share: 0.25, matched: 1, total: 4, examples: ['mealime vs meal planner'] });
    expect(o.brands).toMatchObject({ autocomplete: { topics: 2, brand_topics: 1 } });
    // "cheap" and "app" are buying words, "how to meal plan" only modifies the phrase: Mealime alone names a brand.
    expect(o.brands.lists).toEqual({ share: 0.25, matched: 1, total: 4, examples: ['mealime vs meal planner'] });
    expect(o).toHaveProperty('modifier_comparison.outcome', 'served');
    expect(summarize('competition_signals', o)).toBe(
      "comparisons: under 1.3% of the phrase's searches, 1 of 4 related queries; brands: 1 of 2 autocomplete topics, 1 of 4 related queries",
    );
  });
});

describe('steps 30-31: reach and forecast', () => {
  const place = (name: string, relative: number, share: number | null = null): PlaceInterest => ({
    code: name.slice(0, 2).toUpperCase(),
    name,
    relative,
    share,
  });
  const map = (places: PlaceInterest[], resolution: 'COUNTRY' | 'CITY'): MapOutput => ({
    keyword: 'dog',
    compared_with: null,
    reason: 'r',
    resolution,
    places,
    without_data: 0,
    provenance: null,
  });

  it('30 geographic_reach: countries at a tenth of the strongest or more, its share of them all, cities that register', async () => {
    const countries = map([place('United States', 100), place('Germany', 50), place('Chile', 5)], 'COUNTRY');
    const cities = map([place('Berlin', 3), place('Austin', 0, 0), place('Lima', 0, 2)], 'CITY');
    const o = await runStep('geographic_reach', stepContext({ interest_by_country: countries, interest_by_city: cities }));
    expect(o).toEqual({
      countriesWithInterest: 2,
      countriesWithData: 3,
      topCountry: 'United States',
      topShare: 0.645,
      citiesWithInterest: 2,
    });
    expect(summarize('geographic_reach', o)).toBe('2 of 3 countries ≥ 10, top United States; 2 cities');
  });

  it('31 forecast: the next 7 days after the last day of data (the partial one too); withheld on too short a series', async () => {
    // A weekly pattern (40 … 58) with a little noise, so that week-on-week errors exist to size intervals from.
    const values = Array.from({ length: 63 }, (_, i) => 40 + (i % 7) * 3 + (i % 5 === 0 ? 2 : 0));
    const o = await runStep(
      'forecast',
      stepContext({ interest_90d: series([...values, 1], { partial: [...values.map(() => false), true] }), interest_5y: series([]) }),
    );
    if (o.withheld) throw new Error(`withheld: ${o.reason}`);
    expect(o.horizon).toBe(7);
    // The partial day 63 is not fitted, and not forecast either: a chart shows it (issue 47), so the forecast starts on day 64.
    expect(o.points.map((p) => p.date)).toEqual(Array.from({ length: 7 }, (_, h) => day(64 + h)));
    // The weekly pattern goes on: day 69 is the week's top (about 58), day 70 its low (about 40).
    expect(o.points[5]!.value).toBeGreaterThan(54);
    expect(o.points[5]!.value).toBeLessThan(61);
    expect(o.points[6]!.value).toBeGreaterThan(37);
    expect(o.points[6]!.value).toBeLessThan(44);
    expect(summarize('forecast', o)).toMatch(
      new RegExp(
        `^${o.model}, next 7 days ${o.points[0]!.value}…${o.points[6]!.value}, MASE ${o.backtest.mase ?? '–'}; outlook withheld: `,
      ),
    );
    const short = await runStep('forecast', stepContext({ interest_90d: series(Array(10).fill(30)), interest_5y: series([]) }));
    expect(short).toMatchObject({ withheld: true, reason: 'needs at least 21 daily points, got 10', outlook: { withheld: true } });
    expect(summarize('forecast', short)).toMatch(/^7 days withheld: /);
  });
});

describe('steps 32-39: the eight dimension scores', () => {
  it('32 score_demand: the phrase against the anchor from step 12 (as popular: 0.5; four times: 0.83)', async () => {
    const even = await runStep(
      'score_demand',
      stepContext({ compare_anchor: { anchor: 'bagel', phraseMean: 40, anchorMean: 40, points: 52, provenance: null } }),
    );
    expect(even).toMatchObject({ score: 0.5, evidence: { basis: 'relative', anchor: 'bagel', ratio: 1 } });
    const four = await runStep(
      'score_demand',
      stepContext({ compare_anchor: { anchor: 'bagel', phraseMean: 79.5, anchorMean: 19.5, points: 52, provenance: null } }),
    );
    expect(four.score).toBeCloseTo(0.832, 3);
    expect(summarize('score_demand', four)).toBe(`${four.score!.toFixed(3)} — ${four.explanation}`);
  });

  it('32 score_demand: from the monthly searches of the primary phrase when a provider gave them (a decade 0.2, 10 → 0, 1M → 1)', async () => {
    const volume = (searches: number | null) => ({
      outcome: 'served' as const,
      geo: 'US',
      location: { name: 'United States', code: 2840 },
      language: 'en',
      keywords: [
        {
          keyword: 'dog walking',
          monthlySearches: searches,
          history: [{ month: '2026-10', searches: searches ?? 0 }],
          cpcUsd: 1.2,
          bidLowUsd: 0.5,
          bidHighUsd: 2,
          competition: 'HIGH' as const,
          competitionIndex: 80,
        },
      ],
      provenance: { provider: 'dataforseo' as const },
    });
    const at = (searches: number | null) =>
      runStep(
        'score_demand',
        stepContext({
          ...primary('dog walking', []),
          compare_anchor: { anchor: 'weather', phraseMean: 10, anchorMean: 40, points: 52, provenance: null, volume: volume(searches) },
        }),
      );
    const thousand = await at(1_000);
    expect(thousand).toMatchObject({
      score: 0.4,
      evidence: { basis: 'absolute', monthly_searches: 1_000, location: 'United States', anchor: 'weather' },
    });
    expect(thousand.explanation).toBe(
      'About 1,000 searches a month for "dog walking" in United States (Google Ads, 2026-10 to 2026-10); scored on a log scale from 10 a month (0) to 1,000,000 (1).',
    );
    expect((await at(10)).score).toBe(0);
    expect((await at(5_000_000)).score).toBe(1);
    // Google Ads has too little data for the phrase: relative, and said so.
    expect(await at(null)).toMatchObject({ evidence: { basis: 'relative', anchor: 'weather' } });
  });

  it('33 score_momentum: the 30- and 90-day points with data (partial days as such) and step 23 yearly seasonality', async () => {
    const ninetyValues = Array.from({ length: 90 }, (_, i) => 20 + Math.round(i / 3));
    const thirtyValues = ninetyValues.slice(-30);
    // Day 87 of the 90 (in the last week, which momentum weighs most) has no data: it must not read as a zero.
    const ninety = series(
      ninetyValues.map((v, i) => (i === 87 ? 0 : v)),
      { has_data: ninetyValues.map((_, i) => i !== 87), partial: ninetyValues.map((_, i) => i === 89) },
    );
    const thirty = series(thirtyValues, { partial: thirtyValues.map((_, i) => i === 29) });
    // Step 31's forecast, fitted on the same 90 days: its direction is recorded beside the prediction.
    const forecast = fitForecast(ninety.dates.slice(0, -1), ninetyValues.slice(0, -1), 7);
    const o = await runStep(
      'score_momentum',
      stepContext({
        interest_30d: thirty,
        interest_90d: ninety,
        seasonality: { weekly_acf_lag7: null, yearly_acf_lag52: null, yearly_seasonality: 0.2 },
        forecast,
      }),
    );
    const points = (s: SeriesOutput, skip: number) =>
      s.dates.flatMap((date, i) => (i === skip ? [] : [{ date, value: s.values[i]!, isPartial: s.partial[i] }]));
    const forecast7 = forecast.withheld ? null : forecast.points;
    expect(forecast7).toHaveLength(7);
    expect(o).toEqual(
      assessMomentum({ days30: points(thirty, -1), days90: points(ninety, 87), yearlySeasonality: 0.2, forecast7 }).momentum,
    );
    expect(o.evidence.forecast_7d_change).toEqual(expect.any(Number));
    expect(o).not.toEqual(assessMomentum({ days30: points(thirty, -1), days90: points(ninety, -1), yearlySeasonality: 0.2 }).momentum);
    // The 90-day model on 88 days: the partial last day and the day without data left out.
    expect(o.evidence).toMatchObject({ model: '90d', points: 88, yearly_seasonality: 0.2 });
    // Runs whose step 23 predates yearly_seasonality read it as unknown.
    const older = await runStep(
      'score_momentum',
      stepContext({
        interest_30d: thirty,
        interest_90d: ninety,
        seasonality: { weekly_acf_lag7: null, yearly_acf_lag52: null },
        forecast: { withheld: true, reason: 'needs at least 21 daily points' },
      }),
    );
    expect(older.evidence.yearly_seasonality).toBeNull();
    expect(older.evidence.forecast_7d_change).toBeUndefined();
  });

  it('34 score_durability: the 5-year trajectory with the years it covers, less for fad-like spikes', async () => {
    const trajectory: StepOutputs['trajectory'] = {
      five_year: { trajectory: 'rising', change: 0.5, peakPosition: 1, lastVsPeak: 1 },
      points: 260,
    };
    const calm = { days_90: null, years_5: { cv: 0.2, spikiness: 1.5, fad: false } };
    // Durability reads momentum's trend class (a seasonal series is not called peaked).
    const growing = { ...score(0.6), evidence: { trend_class: 'growing' } };
    const o = await runStep('score_durability', stepContext({ trajectory, volatility: calm, score_momentum: growing }));
    // 0.85 for rising, + 0.1 tanh(0.5).
    expect(o).toMatchObject({ score: 0.896, evidence: { trajectory: 'rising', years: 5, fad: false } });
    const fad = await runStep(
      'score_durability',
      stepContext({ trajectory, volatility: { ...calm, years_5: { cv: 1.2, spikiness: 9, fad: true } }, score_momentum: growing }),
    );
    expect(fad.score).toBe(0.646);
    expect(
      (
        await runStep(
          'score_durability',
          stepContext({ trajectory: { five_year: null, points: 10 }, volatility: calm, score_momentum: growing }),
        )
      ).score,
    ).toBeNull();
  });

  it('35 score_reach: step 30 reach, naming the anchor the country map was drawn against', async () => {
    const reach = { countriesWithInterest: 40, countriesWithData: 60, topCountry: 'United States', topShare: 0, citiesWithInterest: 12 };
    const country: MapOutput = {
      keyword: 'dog',
      compared_with: 'bagel',
      reason: 'r',
      resolution: 'COUNTRY',
      places: [],
      without_data: 0,
      provenance: null,
    };
    const o = await runStep('score_reach', stepContext({ geographic_reach: reach, interest_by_country: country }));
    expect(o).toMatchObject({ score: 1, evidence: { countries_with_interest: 40, compared_with: 'bagel' } });
    const concentrated = await runStep(
      'score_reach',
      stepContext({ geographic_reach: { ...reach, topShare: 1 }, interest_by_country: country }),
    );
    expect(concentrated.score).toBe(0.7);
  });

  it('36 score_breadth: step 26 readings, strongest first', async () => {
    const breadth: StepOutputs['demand_breadth'] = {
      lists: { queries: 20, topics: 20, vocabulary: 40 },
      autocomplete: { unavailable: 'autocomplete was not asked for the phrase' },
      modifiers: { registering: 0, families: 3, phrase_mean: 40 },
      modifier_comparison: { outcome: 'served', keywords: ['x'], provenance: null },
    };
    const o = await runStep('score_breadth', stepContext({ demand_breadth: breadth }));
    // Lists saturate (1), no family registers (0), each at full strength: 0.5.
    expect(o).toMatchObject({
      score: 0.5,
      evidence: { sources: 'related lists + modifier comparison', not_read: 'autocomplete: autocomplete was not asked for the phrase' },
    });
  });

  const comparison: ModifierComparison = { outcome: 'served', keywords: ['x'], provenance: null };
  const familyShare = (family: 'pain' | 'intent' | 'competition', share: number) => ({
    family,
    terms: ['how to'],
    share,
    family_mean: share * 40,
    phrase_mean: 40,
    points: 12,
    resolution: 0.0125,
  });

  it('37 score_pain and 38 score_intent: each from its own step (pain saturates at a tenth of searches, intent at a quarter)', async () => {
    const signal = (share: number): SignalOutput => ({
      modifiers: familyShare('pain', share),
      lists: { unavailable: 'Google served them empty' },
      modifier_comparison: comparison,
    });
    const ctx = stepContext({ pain_signals: signal(0.05), buyer_intent: signal(0.2) });
    expect(await runStep('score_pain', ctx)).toMatchObject({
      score: 0.5,
      evidence: { sources: 'modifier comparison', modifier_share: 0.05 },
    });
    expect(await runStep('score_intent', ctx)).toMatchObject({ score: 0.8, evidence: { modifier_share: 0.2 } });
  });

  it('39 score_whitespace: one minus the pressure of comparisons and brands', async () => {
    const competition: StepOutputs['competition_signals'] = {
      comparisons: { modifiers: familyShare('competition', 0.025), lists: { unavailable: 'Google served them empty' } },
      brands: {
        autocomplete: { topics: 4, types: ['Software'], brand_topics: 4, brand_examples: [] },
        lists: { unavailable: 'Google served them empty' },
      },
      modifier_comparison: comparison,
    };
    const o = await runStep('score_whitespace', stepContext({ competition_signals: competition }));
    // Comparisons: 0.025 of 0.05 = 0.5; brands: every topic a business = 1; the stronger pressure, 1, decides.
    expect(o).toMatchObject({ score: 0, strength: 0.75, evidence: { sources: 'modifier comparison + autocomplete' } });
  });
});

describe('step 40: aggregate', () => {
  it('combines the eight scores with the 30-day series quality, names the category and the two strongest', async () => {
    const scores: Partial<StepOutputs> = {
      score_demand: score(0.8),
      score_momentum: score(0.6),
      score_durability: score(0.7),
      score_reach: score(0.95),
      score_breadth: score(0.5),
      score_pain: score(null),
      score_intent: score(0.4),
      score_whitespace: score(0.3),
    };
    const outputs = {
      ...scores,
      interest_30d: series(Array(30).fill(50)),
      extract_phrases: { phrases: ['meal planner'] },
      autocomplete_phrases: { topics: {}, not_asked: [] },
      ...primary(),
      // Step 5 could not place the idea, so step 40 files the insight by what the related lists say.
      classify_category: { category: 'uncategorized' as const, google_id: null, confidence: 0, matched: [], scores: {} },
      ...relatedLists({ top: ['meal prep recipes', 'healthy dinner recipes'] }, { top: ['Recipe'] }),
    };
    const o = await runStep('aggregate', stepContext(outputs, { idea: 'Meal planner for busy parents' }));
    expect(Object.keys(o.dimensions)).toEqual(['demand', 'momentum', 'durability', 'reach', 'breadth', 'pain', 'intent', 'whitespace']);
    expect(o.dimensions.reach).toEqual(score(0.95));
    expect(o.category).toBe('food-drink');
    // A firm choice of step 5 is the insight's category, whatever the lists say (docs/categories.md).
    const firm = {
      category: 'people-society' as const,
      google_id: 14,
      confidence: 0.8,
      matched: ['head:parent'],
      scores: { 'people-society': 6 },
    };
    expect(
      (await runStep('aggregate', stepContext({ ...outputs, classify_category: firm }, { idea: 'Meal planner for busy parents' })))
        .category,
    ).toBe('people-society');
    expect(o.overall.scoredDimensions).toBe(7);
    expect(o.summary).toBe(
      `Overall ${o.overall.score.toFixed(2)} (confidence ${o.overall.confidence.toFixed(2)}, 7/8 dimensions scored); strongest: reach 0.95, demand 0.80; filed under food-drink (classify_category's guess was uncategorized).`,
    );
    expect(summarize('aggregate', o)).toBe(o.summary);
    // A 30-day series of zeros leaves nothing to be confident in.
    const zeros = await runStep(
      'aggregate',
      stepContext({ ...outputs, interest_30d: series(Array(30).fill(0)) }, { idea: 'Meal planner for busy parents' }),
    );
    expect(zeros.overall.confidence).toBeLessThan(o.overall.confidence);
  });
});
