// The research steps that read related lists and their evidence (13-16, 25-29,
// 36-39), run in order with the others against Google as it answers in late
// 2026 (related queries listed through the embed flow, topics and the explore
// page's lists empty), with every list empty, as it answered before (listed),
// and as replay answers (recorded lists, no modifier comparison): every run
// completes its 40 steps, each step records what it was served, and each
// dimension says what it read.
import { describe, expect, it } from 'vitest';
import { ReplayTrendsProvider } from '../../src/providers/replay/provider.js';
import { SyntheticTrendsProvider } from '../../src/providers/synthetic/provider.js';
import { explorePartByPart } from '../../src/providers/explore-parts.js';
import { NotRecordedError } from '../../src/providers/contract.js';
import { requestKey, type RankedItem, type TrendsRequest, type TrendsResponse } from '../../src/domain/trends/answers.js';
import type { SignalOutput, StepOutputs } from '../../src/research/step-contract.js';
import { TrendsFailedError } from '../../src/providers/gateway.js';
import { DIMENSIONS } from '../../src/domain/scoring/dimensions.js';
import { RecordedOutputs, runStep, runSteps, stepContext, summarize } from '../support/steps-harness.js';
import { RECORDED_DIR } from '../support/shared-data.js';

const TODAY = () => new Date(Date.UTC(2026, 10, 24));
const RELATED_STEPS = ['related_queries_top', 'related_queries_rising', 'related_topics_top', 'related_topics_rising'] as const;
const item = (label: string, value: number, formattedValue = String(value)): RankedItem => ({
  label,
  value,
  breakout: formattedValue === 'Breakout',
  formattedValue,
});

const isRelated = (r: TrendsRequest) => r.kind === 'relatedQueries' || r.kind === 'relatedTopics';

/**
 * Google as a fake: the synthetic world for everything, except what `override`
 * answers (a request kind, an explore part); explores are answered part by part
 * so an override reaches their parts too. Related lists asked on their own come
 * through the embed flow, as Google's do.
 */
function google(override: (request: TrendsRequest) => Promise<TrendsResponse> | undefined = () => undefined) {
  const synthetic = new SyntheticTrendsProvider(TODAY);
  const fetch = async (request: TrendsRequest): Promise<TrendsResponse> => {
    if (request.kind === 'explore') return explorePartByPart(request, fetch);
    const answer = (await override(request)) ?? (await synthetic.fetch(request));
    return isRelated(request) ? { ...answer, provenance: { provider: 'google', via: 'embed' } } : answer;
  };
  return fetch;
}
const emptyLists = (r: TrendsRequest) =>
  isRelated(r) ? Promise.resolve({ kind: r.kind as 'relatedQueries', top: [], rising: [], outcome: 'empty' as const }) : undefined;
/** A modifier comparison whose every family column is `factor` × the phrase's (factor > 1: numbers that contradict each other). */
const familiesAt =
  (factor: number) =>
  async (r: TrendsRequest): Promise<TrendsResponse> => {
    if (r.kind !== 'interestOverTime') throw new Error(r.kind);
    return {
      kind: 'interestOverTime',
      keywords: r.keywords,
      points: Array.from({ length: 52 }, (_, i) => {
        const phrase = 10 + (i % 5);
        return {
          date: `2026-01-${String((i % 28) + 1).padStart(2, '0')}`,
          values: r.keywords.map((_, k) => (k === 0 ? phrase : Math.min(100, Math.round(phrase * factor)))),
          hasData: r.keywords.map(() => true),
          isPartial: false,
        };
      }),
    };
  };

const isModifierComparison = (r: TrendsRequest) => r.kind === 'interestOverTime' && r.keywords.some((k) => k.includes(' + '));
const scored = (outputs: RecordedOutputs) => DIMENSIONS.filter((d) => outputs.get(`score_${d}`).score !== null);

/** What steps 27-28 record now (runs recorded before the modifier comparison hold a TermShare). */
function signal(output: StepOutputs['pain_signals']): SignalOutput {
  if (!('modifier_comparison' in output)) throw new Error(`expected the modifier comparison's shape, got ${JSON.stringify(output)}`);
  return output;
}
function breadth(output: StepOutputs['demand_breadth']) {
  if (!('modifier_comparison' in output)) throw new Error(`expected the modifier comparison's shape, got ${JSON.stringify(output)}`);
  return output;
}

describe('against Google as it answers automated clients in late 2026 (related queries through the embed flow)', () => {
  it('completes all 40 steps, reads the related queries the embed flow lists, records the empty topics, and scores every dimension from every source', async () => {
    const { outputs, summaries, requests } = await runSteps('Meal planning app for busy parents', google());
    expect(outputs.size).toBe(40);
    expect(outputs.get('related_queries_top')).toMatchObject({
      served: 'listed',
      items: expect.arrayContaining([expect.objectContaining({ label: expect.any(String) })]),
      provenance: { via: 'embed' },
    });
    expect(summaries.get('related_queries_top')).toMatch(/^\d+ \(embed flow\): /);
    for (const step of ['related_topics_top', 'related_topics_rising'] as const) {
      expect(outputs.get(step)).toMatchObject({ served: 'empty', items: [] });
      expect(summaries.get(step)).toMatch(/^empty: Google's embed flow served no list/);
    }
    expect(outputs.get('breakout')).toMatchObject({ rising_queries: 'listed' });

    // The modifier comparison: one request of the phrase and three OR-items, 12 months; and the listed queries.
    const pain = signal(outputs.get('pain_signals'));
    expect(pain.modifier_comparison).toMatchObject({
      outcome: 'served',
      keywords: [
        expect.any(String),
        expect.stringContaining(' how to + '),
        expect.stringContaining(' price + '),
        expect.stringContaining(' vs + '),
      ],
    });
    expect(pain.modifiers).toMatchObject({
      family: 'pain',
      share: expect.any(Number),
      terms: expect.arrayContaining(['how to']),
      contradictory: false,
    });
    expect(pain.lists).toMatchObject({ total: expect.any(Number) });
    expect(pain.listsFrom).toBe("Google's embed flow");

    expect(scored(outputs)).toEqual([...DIMENSIONS]);
    for (const d of ['pain', 'intent'] as const) {
      // Every number names its source; pain and intent say they are not validated yet.
      expect(outputs.get(`score_${d}`)).toMatchObject({
        experimental: true,
        evidence: {
          sources: 'modifier comparison + related queries',
          modifier_source: expect.stringMatching(/^modifier comparison/),
          list_source: "related queries listed by Google's embed flow",
        },
      });
    }
    expect(outputs.get('score_breadth').evidence.sources).toBe('related lists + autocomplete + modifier comparison');
    expect(outputs.get('score_whitespace').evidence.sources).toBe('modifier comparison + related queries + autocomplete');
    expect(outputs.get('aggregate').overall.scoredDimensions).toBe(8);

    // What the run asks Google (the steps that share a request ask it once a day): autocomplete, 90 days, 5 years,
    // the anchor comparison, related queries and related topics (each through the embed flow), the modifier
    // comparison, and one explore for the maps (the phrase's own, or against the anchor). In the simulated
    // world the anchor, "weather", stands level with a two-word product name (since 2026-11-28, issue 47), so
    // a secondary candidate far more searched than both (a one-word name) leaves the phrase and the anchor a
    // few coarse integers, and the two are asked again on their own (the GTAB lesson): a fourth
    // interest-over-time request. (In Google "weather" dwarfs every candidate, and they are not asked again.)
    const distinct = [...new Map(requests.map((r) => [requestKey(r), r])).values()];
    expect(distinct.map((r) => r.kind).sort()).toEqual([
      'autocomplete',
      'explore',
      'explore',
      'interestOverTime',
      'interestOverTime',
      'interestOverTime',
      'interestOverTime',
      'relatedQueries',
      'relatedTopics',
    ]);
    const withModifiers = distinct.filter((r) => 'keywords' in r && r.keywords.some((k) => k.includes(' + ')));
    expect(withModifiers).toEqual([
      { kind: 'explore', keywords: pain.modifier_comparison.keywords, timeframe: '12m', geo: '', parts: ['series'] },
    ]);
  });

  it('with every related list empty, still scores every dimension from the modifier comparison and autocomplete', async () => {
    const { outputs, summaries } = await runSteps('Meal planning app for busy parents', google(emptyLists));
    for (const step of RELATED_STEPS) {
      expect(outputs.get(step)).toMatchObject({ served: 'empty', items: [] });
      expect(summaries.get(step)).toMatch(/^empty: Google's embed flow served no list/);
    }
    expect(signal(outputs.get('pain_signals')).lists).toEqual({ unavailable: "Google's embed flow served them empty" });
    expect(scored(outputs)).toEqual([...DIMENSIONS]);
    for (const d of ['pain', 'intent'] as const)
      expect(outputs.get(`score_${d}`).evidence).toMatchObject({
        sources: 'modifier comparison',
        not_read: expect.stringMatching(/related queries: Google's embed flow served them empty/),
      });
    expect(outputs.get('score_breadth').evidence.sources).toBe('autocomplete + modifier comparison');
  });

  it('scores pain and intent as unscored, with the reason, when Google has too little data for the comparison and lists nothing, and still completes', async () => {
    const fetch = google((r) =>
      isModifierComparison(r) && r.kind === 'interestOverTime'
        ? Promise.resolve({
            kind: 'interestOverTime',
            keywords: r.keywords,
            outcome: 'no_data',
            points: Array.from({ length: 52 }, (_, i) => ({
              date: `2026-01-${String((i % 28) + 1).padStart(2, '0')}`,
              values: r.keywords.map(() => 0),
              hasData: r.keywords.map(() => false),
              isPartial: false,
            })),
          })
        : emptyLists(r),
    );
    const { outputs } = await runSteps('Meal planning app for busy parents', fetch);
    expect(outputs.size).toBe(40);
    expect(signal(outputs.get('pain_signals')).modifier_comparison.outcome).toBe('no_data');
    expect(outputs.get('score_pain')).toMatchObject({ score: null, explanation: expect.stringMatching(/too little data for the phrase/) });
    expect(outputs.get('score_intent').score).toBeNull();
    // Breadth and whitespace still have autocomplete; the confidence says how much less there is.
    expect(scored(outputs)).toEqual(['demand', 'momentum', 'durability', 'reach', 'breadth', 'whitespace']);
    expect(outputs.get('aggregate').overall.confidence).toBeLessThan(0.75);
  });

  it('does not score an OR-group above its phrase: the reading is contradictory, the dimension says why, and its confidence drops', async () => {
    const contradicting = (r: TrendsRequest) => (isModifierComparison(r) ? familiesAt(3)(r) : undefined);
    const { outputs } = await runSteps('Solar generator rental', google(contradicting));
    const pain = signal(outputs.get('pain_signals'));
    expect(pain.modifiers).toMatchObject({ contradictory: true, ratio: expect.any(Number) });
    expect((pain.modifiers as { ratio: number }).ratio).toBeGreaterThan(2.5);
    // Listed related queries are still read; the contradictory reading is not, and the strength is halved.
    expect(outputs.get('score_pain')).toMatchObject({
      score: expect.any(Number),
      strength: 0.5,
      evidence: {
        sources: 'related queries',
        modifier_contradictory: true,
        not_read: expect.stringMatching(
          /modifier comparison: contradictory numbers: the OR-group of the phrase's pain words averages 3× the phrase/,
        ),
      },
      explanation: expect.stringMatching(/not read: its numbers contradict each other/),
    });
    expect(outputs.get('score_breadth').evidence).toMatchObject({
      not_read: expect.stringMatching(/every family's numbers contradict the phrase's/),
    });
    // With nothing listed either, no score at all: null, with the reason; never 1.
    const alone = await runSteps(
      'Solar generator rental',
      google((r) => (isModifierComparison(r) ? familiesAt(3)(r) : emptyLists(r))),
    );
    for (const d of ['pain', 'intent'] as const) {
      expect(alone.outputs.get(`score_${d}`)).toMatchObject({ score: null, explanation: expect.stringMatching(/contradictory numbers/) });
    }
    expect(alone.outputs.get('aggregate').overall.confidence).toBeLessThan(outputs.get('aggregate').overall.confidence);
  });

  it('goes on when the comparison fails for good (a refusal), and records why', async () => {
    const fetch = google((r) =>
      isModifierComparison(r) ? Promise.reject(new TrendsFailedError('Google refused the request (400)')) : undefined,
    );
    const { outputs } = await runSteps('Dog walking marketplace', fetch);
    expect(outputs.size).toBe(40);
    expect(breadth(outputs.get('demand_breadth')).modifier_comparison).toMatchObject({
      outcome: 'failed',
      reason: 'Google refused the request (400)',
    });
    expect(outputs.get('score_pain').evidence.not_read).toMatch(/modifier comparison: its request failed/);
  });
});

describe('against Google listing related lists (as before 2024-08, or should it serve them again)', () => {
  const lists = {
    relatedQueries: {
      top: [
        item('meal planning app', 100),
        item('best meal planning app', 60),
        item('how to meal plan', 30),
        item('mealime vs plan to eat', 10),
      ],
      rising: [item('ai meal planning', 5000, 'Breakout')],
    },
    relatedTopics: { top: [item('Meal planning', 100), item('Mealime', 40)], rising: [item('Meal prep', 120, '+120%')] },
  };
  const fetch = google((r) =>
    r.kind === 'relatedQueries' || r.kind === 'relatedTopics' ? Promise.resolve({ kind: r.kind, ...lists[r.kind] }) : undefined,
  );
  // (The fake lists them through the embed flow, as Google does today; the explore page's own widgets stay empty.)

  it('reads the lists as well: breakout queries, and each dimension names both sources', async () => {
    const { outputs, summaries } = await runSteps('Meal planning app for busy parents', fetch, { hints: ['meal planning'] });
    expect(outputs.get('related_queries_top')).toMatchObject({ served: 'listed', items: [{ label: 'meal planning app' }, {}, {}, {}] });
    expect(summaries.get('related_queries_top')).toBe('4 (embed flow): meal planning app, best meal planning app, how to meal plan, …');
    expect(outputs.get('breakout')).toMatchObject({ rising_queries: 'listed', breakout_queries: ['ai meal planning'] });
    expect(signal(outputs.get('pain_signals')).lists).toMatchObject({ matched: 1, total: 5 });
    for (const d of ['pain', 'intent'] as const)
      expect(outputs.get(`score_${d}`).evidence.sources).toBe('modifier comparison + related queries');
    expect(outputs.get('score_breadth').evidence).toMatchObject({
      sources: 'related lists + autocomplete + modifier comparison',
      related_queries: 5,
      related_topics: 3,
    });
    expect(outputs.get('score_whitespace').evidence.sources).toBe('modifier comparison + related queries + autocomplete');
    expect(scored(outputs)).toHaveLength(8);
  });
});

describe('against replay (recorded lists, no modifier comparison ever recorded)', () => {
  it('completes "pizza": the comparison is recorded as not recorded, and the dimensions read the recorded lists', async () => {
    const replay = new ReplayTrendsProvider(RECORDED_DIR);
    const { outputs, summaries } = await runSteps('pizza', (r) => replay.fetch(r), { anchor: 'bagel' });
    expect(outputs.size).toBe(40);
    for (const step of RELATED_STEPS) expect(outputs.get(step).served).toBe('listed');
    const pain = signal(outputs.get('pain_signals'));
    expect(pain.modifier_comparison).toMatchObject({ outcome: 'not_recorded', reason: expect.stringMatching(/replay has no recording/) });
    expect(pain.modifiers).toEqual({ unavailable: 'replay has no recording of it (it never invents one)' });
    expect(summaries.get('buyer_intent')).toBe(
      'modifier comparison: not read (replay has no recording of it); related queries: 6 of 38 related queries',
    );
    expect(outputs.get('score_intent')).toMatchObject({
      score: expect.any(Number),
      evidence: { sources: 'related queries', list_matched: 6, not_read: expect.stringMatching(/^modifier comparison: replay/) },
    });
    expect(outputs.get('score_pain')).toMatchObject({ score: 0, strength: 1 });
    // Whitespace reads the crowding it cites: it scored 0.667, "room to enter", beside 68 % of related queries naming a brand.
    const whitespace = outputs.get('score_whitespace');
    expect(whitespace.score).toBeLessThan(0.4);
    expect(whitespace.explanation).toMatch(/45% of related queries name a brand.*: a crowded space\.$/);
    expect(whitespace.evidence.brand_examples).not.toMatch(/pizza delivery/);
    expect(outputs.get('score_breadth').evidence.sources).toBe('related lists + autocomplete');
    expect(outputs.get('breakout').breakout_queries).toEqual(['licorice pizza']);
    // The recordings of "pizza" are weekly: the momentum model reads days, so it says so instead of reading weeks as days.
    expect(scored(outputs)).toEqual(DIMENSIONS.filter((d) => d !== 'momentum'));
    expect(outputs.get('score_momentum').explanation).toMatch(
      /the series is weekly \(a point every 7 days\): the momentum model reads daily points/,
    );
  });

  it('records lists replay has no recording of as not recorded, and reads the comparison instead', async () => {
    const fetch = google((r) =>
      r.kind === 'relatedQueries' || r.kind === 'relatedTopics'
        ? Promise.reject(new NotRecordedError(`replay has no recording of ${r.kind}`))
        : undefined,
    );
    const { outputs, summaries } = await runSteps('Dog walking marketplace', fetch);
    for (const step of RELATED_STEPS)
      expect(outputs.get(step)).toMatchObject({
        served: 'not_recorded',
        items: [],
        reason: expect.stringMatching(/replay has no recording/),
      });
    expect(summaries.get('related_topics_rising')).toBe('not recorded by replay');
    expect(outputs.get('breakout').rising_queries).toBe('not_recorded');
    expect(outputs.get('score_pain').evidence).toMatchObject({
      sources: 'modifier comparison',
      not_read: 'related queries: replay has no recording of them',
    });
    expect(scored(outputs)).toHaveLength(8);
  });
});

describe('runs recorded before these steps read the modifier comparison', () => {
  it('score steps 36-39 from the related-list outputs those runs recorded', async () => {
    const old: Partial<StepOutputs> = {
      demand_breadth: { queries: 30, topics: 10, vocabulary: 20 },
      pain_signals: { share: 0.1, matched: 3, total: 30, examples: ['x how to'] },
      buyer_intent: { share: 0.33, matched: 10, total: 30, examples: ['best x'] },
      competition_signals: {
        comparisons: { share: 0, matched: 0, total: 30, examples: [] },
        brands: { share: 0.2, matched: 6, total: 30, examples: ['x hut'] },
      },
    };
    const ctx = stepContext(old);
    expect(await runStep('score_breadth', ctx)).toMatchObject({ score: 0.75, evidence: { sources: 'related lists' } });
    expect(await runStep('score_pain', ctx)).toMatchObject({
      score: 0.4,
      evidence: { not_read: expect.stringMatching(/not asked by this run/) },
    });
    expect((await runStep('score_intent', ctx)).score).toBe(1);
    // Brands 0.2 of 0.4 saturation: pressure 0.5, the stronger of the two (comparisons 0).
    expect((await runStep('score_whitespace', ctx)).score).toBe(0.5);
    expect(summarize('pain_signals', old.pain_signals!)).toBe('3 of 30 queries (e.g. "x how to")');
  });
});
