// Breadth, pain, intent and whitespace: the dimensions read from what surrounds
// a phrase (its modifier comparison, autocomplete topics and listed related
// queries), split from dimension-scores.ts, which re-exports them.
import {
  EXPERIMENTAL_DIMENSIONS,
  isAvailable,
  unsupported,
  type Dimension,
  type DimensionScore,
  type Evidence,
  type Reading,
} from './dimensions.js';
import { familyStrength, tooLittleData, type FamilyShare } from '../research/modifier-evidence.js';
import { LEFT_OUT_REASON, type TermShare } from '../research/query-signals.js';
import { AUTOCOMPLETE_TOPICS_MAX, type TopicSignals } from '../research/topic-signals.js';
import { clamp01, round3, tenthsPercent, wholePercent } from '../numbers.js';

// Breadth, pain, intent and whitespace each read every source there is and
// say which ones they read: the modifier comparison (modifier-evidence.ts), the
// autocomplete topics (topic-signals.ts) and, when Google lists them, related
// queries and topics (query-signals.ts). A score is the mean of the readings
// available, each weighted by its strength; the dimension's strength (see
// DimensionScore) is that of the best of them.

/**
 * Where a signal's reading saturates its score: as a share of the phrase's
 * searches (modifier comparison) and as a share of listed related queries
 * (the related-list reading, unchanged). Chosen, not fitted: no recording
 * holds both readings for the same idea (docs/research.md, "Agreement").
 */
export const SIGNAL_SATURATION = {
  pain: { modifiers: 0.1, lists: 0.25 },
  intent: { modifiers: 0.25, lists: 0.33 },
  competition: { modifiers: 0.05, lists: 0.25 },
} as const;
/** Brand pressure saturates when this share of listed queries or autocomplete topics names a business. */
export const BRAND_SATURATION = 0.4;
/** What a reading from a handful of autocomplete topics counts for in the confidence. */
export const AUTOCOMPLETE_STRENGTH = 0.5;
/** Breadth's scales: related queries + topics and their distinct words (lists), topics and their types (autocomplete). */
export const BREADTH_SCALES = { listed: 40, words: 40, topics: AUTOCOMPLETE_TOPICS_MAX, types: 4 } as const;

type SignalFamily = keyof typeof SIGNAL_SATURATION;
const SIGNAL_WORDS: Record<SignalFamily, string> = { pain: 'a problem word', intent: 'a buying word', competition: 'a comparison word' };

export interface SignalInput {
  /** The family's share of the phrase's searches, from the modifier comparison. */
  modifiers: Reading<FamilyShare>;
  /** Listed related queries carrying the family's terms. */
  lists: Reading<TermShare>;
  /** Where the listed related queries came from (e.g. "Google's embed flow"), named in the evidence. */
  listsFrom?: string;
}

/** What a dimension's evidence lost to numbers that contradict each other: its strength is multiplied by this. */
export const CONTRADICTION_STRENGTH = 0.5;

interface Part {
  source: string;
  score: number;
  strength: number;
  says: string;
}

/** Readings combine weighted by their strength: a handful of autocomplete topics counts half as much as a list or a comparison. */
const weighted = (parts: Part[]) =>
  parts.reduce((s, p) => s + p.score * p.strength, 0) /
  Math.max(
    1e-9,
    parts.reduce((s, p) => s + p.strength, 0),
  );

/**
 * A family's modifier reading as it may be scored: contradictory numbers (an
 * OR-group above its phrase) are not read; nor is a phrase too far down the
 * comparison's scale to be read (too little data), nor a zero that one
 * rounding step cannot tell from half of what saturates the score.
 */
export function readableFamily(family: SignalFamily, modifiers: Reading<FamilyShare>): Reading<FamilyShare> {
  if (!isAvailable(modifiers)) return modifiers;
  if (modifiers.contradictory) {
    return {
      contradictory: true,
      unavailable: `contradictory numbers: the OR-group of the phrase's ${family} words averages ${Math.round((modifiers.ratio ?? modifiers.family_mean / Math.max(1e-9, modifiers.phrase_mean)) * 100) / 100}× the phrase (${modifiers.family_mean} against ${modifiers.phrase_mean}), which a part of the phrase's searches cannot be beyond rounding; Google's sample of this phrase is too thin to keep the relation`,
    };
  }
  const little = tooLittleData('the phrase', modifiers.phrase_mean);
  if (little) return { unavailable: little };
  if (modifiers.share === 0 && modifiers.resolution > SIGNAL_SATURATION[family].modifiers / 2) {
    return {
      unavailable: `too little data: the family reads 0, but one rounding step is ${tenthsPercent(modifiers.resolution)} of the phrase's searches, more than half of the ${tenthsPercent(SIGNAL_SATURATION[family].modifiers)} that saturates the score`,
    };
  }
  return modifiers;
}

function signalParts(
  family: SignalFamily,
  input: SignalInput,
): { parts: Part[]; notRead: string[]; evidence: Evidence; contradicted: boolean } {
  const parts: Part[] = [];
  const notRead: string[] = [];
  const evidence: Evidence = {};
  const { lists } = input;
  const modifiers = readableFamily(family, input.modifiers);
  const contradicted = !isAvailable(modifiers) && modifiers.contradictory === true;
  if (contradicted)
    Object.assign(evidence, {
      modifier_contradictory: true,
      modifier_ratio: isAvailable(input.modifiers) ? (input.modifiers.ratio ?? null) : null,
    });
  if (isAvailable(modifiers)) {
    parts.push({
      source: 'modifier comparison',
      score: clamp01(modifiers.share / SIGNAL_SATURATION[family].modifiers),
      strength: familyStrength(modifiers),
      says: `${modifiers.share === 0 ? `under ${tenthsPercent(modifiers.resolution)}` : tenthsPercent(modifiers.share)} of searches for the phrase carry ${SIGNAL_WORDS[family]} (${modifiers.terms.slice(0, 3).join(', ')}${modifiers.terms.length > 3 ? ', …' : ''})`,
    });
    Object.assign(evidence, {
      modifier_source: 'modifier comparison (one 12-month request: the phrase and its OR-groups)',
      modifier_share: modifiers.share,
      modifier_terms: modifiers.terms.join(' | '),
      family_mean: modifiers.family_mean,
      phrase_mean: modifiers.phrase_mean,
      resolution: modifiers.resolution,
    });
  } else notRead.push(`modifier comparison: ${modifiers.unavailable}`);
  if (isAvailable(lists) && lists.total > 0) {
    parts.push({
      source: 'related queries',
      score: clamp01(lists.share / SIGNAL_SATURATION[family].lists),
      strength: 1,
      says: `${lists.matched} of ${lists.total} related queries carry ${SIGNAL_WORDS[family]}${lists.examples[0] ? ` (e.g. "${lists.examples[0]}")` : ''}`,
    });
    Object.assign(evidence, {
      list_source: `related queries listed by ${input.listsFrom ?? 'Google'}`,
      list_share: lists.share,
      list_matched: lists.matched,
      list_total: lists.total,
      examples: lists.examples.join(' | ') || null,
    });
  } else notRead.push(`related queries: ${isAvailable(lists) ? 'Google listed none' : lists.unavailable}`);
  const leftOut = [
    ...new Set([...((isAvailable(input.modifiers) && input.modifiers.left_out) || []), ...((isAvailable(lists) && lists.left_out) || [])]),
  ];
  if (leftOut.length) {
    Object.assign(evidence, { left_out: leftOut.join(' | '), left_out_reason: LEFT_OUT_REASON });
    const last = parts.at(-1);
    if (last) last.says += `; not counted: ${leftOut.map((w) => `"${w}"`).join(', ')}, words of the idea itself`;
  }
  return { parts, notRead, evidence, contradicted };
}

/**
 * The parts' mean weighted by strength, with where they came from and the
 * strength of the best one, less when a source contradicted itself; marked
 * experimental where the dimension is.
 */
function combined(
  dimension: Dimension,
  parts: Part[],
  notRead: string[],
  evidence: Evidence,
  explanation: string,
  contradicted = false,
): DimensionScore {
  return {
    score: round3(weighted(parts)),
    evidence: { sources: parts.map((p) => p.source).join(' + '), ...evidence, ...(notRead.length ? { not_read: notRead.join('; ') } : {}) },
    explanation,
    strength: round3(Math.max(...parts.map((p) => p.strength)) * (contradicted ? CONTRADICTION_STRENGTH : 1)),
    ...(EXPERIMENTAL_DIMENSIONS[dimension] ? { experimental: true } : {}),
  };
}

function signalScore(family: 'pain' | 'intent', input: SignalInput | null): DimensionScore {
  const experimental = EXPERIMENTAL_DIMENSIONS[family] ? { experimental: true } : {};
  if (!input) return { ...unsupported(`needs the modifier comparison or related queries to measure ${family}`), ...experimental };
  const { parts, notRead, evidence, contradicted } = signalParts(family, input);
  if (parts.length === 0)
    return {
      ...unsupported(`Nothing to read ${family} from: ${notRead.join('; ')}.`, { ...evidence, not_read: notRead.join('; ') }),
      ...experimental,
    };
  const caveat = contradicted ? ` The modifier comparison was not read: its numbers contradict each other (see not_read).` : '';
  return combined(
    family,
    parts,
    notRead,
    evidence,
    `${parts.map((p) => p.says).join('; ')}.${caveat}`.replace(/^./, (c) => c.toUpperCase()),
    contradicted,
  );
}

/**
 * Pain: searches that seek a fix. From the modifier comparison, the share of
 * the phrase's searches with a problem word (a tenth saturates); from related
 * queries, the share of listed ones (a quarter saturates).
 */
export const scorePain = (input: SignalInput | null) => signalScore('pain', input);

/** Intent: buying searches ("price", "best", "near me" …): a quarter of the phrase's searches, or a third of listed queries, saturates. */
export const scoreIntent = (input: SignalInput | null) => signalScore('intent', input);

export interface BreadthInput {
  lists: Reading<{ queries: number; topics: number; vocabulary: number }>;
  autocomplete: Reading<TopicSignals>;
  /** How many of the families asked register any searches at all; families whose numbers contradicted the phrase's are left out and counted. */
  modifiers: Reading<{ registering: number; families: number; phrase_mean: number; contradictory?: number; left_out?: string[] }>;
}

/**
 * Breadth: many ways in. Related lists (their count and distinct words), the
 * autocomplete topics (their count and variety of types), and how many of the
 * modifier families people search the phrase with at all.
 */
export function scoreBreadth(input: BreadthInput | null): DimensionScore {
  if (!input) return unsupported('needs autocomplete topics, the modifier comparison or related lists');
  const parts: Part[] = [];
  const notRead: string[] = [];
  const evidence: Evidence = {};
  const { lists, autocomplete, modifiers } = input;
  if (isAvailable(lists) && lists.queries + lists.topics > 0) {
    parts.push({
      source: 'related lists',
      score: 0.5 * clamp01((lists.queries + lists.topics) / BREADTH_SCALES.listed) + 0.5 * clamp01(lists.vocabulary / BREADTH_SCALES.words),
      strength: 1,
      says: `${lists.queries} related queries and ${lists.topics} related topics using ${lists.vocabulary} distinct words`,
    });
    Object.assign(evidence, { related_queries: lists.queries, related_topics: lists.topics, distinct_words: lists.vocabulary });
  } else notRead.push(`related lists: ${isAvailable(lists) ? 'Google listed none' : lists.unavailable}`);
  if (isAvailable(autocomplete) && autocomplete.topics > 0) {
    parts.push({
      source: 'autocomplete',
      score: 0.5 * clamp01(autocomplete.topics / BREADTH_SCALES.topics) + 0.5 * clamp01(autocomplete.types.length / BREADTH_SCALES.types),
      strength: AUTOCOMPLETE_STRENGTH,
      says: `${autocomplete.topics} autocomplete topics of ${autocomplete.types.length} types`,
    });
    Object.assign(evidence, { autocomplete_topics: autocomplete.topics, topic_types: autocomplete.types.join(' | ') });
  } else notRead.push(`autocomplete: ${isAvailable(autocomplete) ? 'Google knows no topic for the phrase' : autocomplete.unavailable}`);
  if (isAvailable(modifiers) && modifiers.families > 0) {
    parts.push({
      source: 'modifier comparison',
      score: modifiers.registering / modifiers.families,
      strength: familyStrength(modifiers),
      says: `searched with ${modifiers.registering} of ${modifiers.families} kinds of modifier`,
    });
    Object.assign(evidence, {
      families_registering: modifiers.registering,
      families_asked: modifiers.families,
      ...(modifiers.contradictory ? { families_contradictory: modifiers.contradictory } : {}),
      ...(modifiers.left_out?.length ? { left_out: modifiers.left_out.join(' | '), left_out_reason: LEFT_OUT_REASON } : {}),
    });
    if (modifiers.left_out?.length)
      parts.at(-1)!.says += ` (not asked: ${modifiers.left_out.map((w) => `"${w}"`).join(', ')}, words of the idea itself)`;
  } else notRead.push(`modifier comparison: ${isAvailable(modifiers) ? 'no family fitted the request' : modifiers.unavailable}`);
  if (parts.length === 0) return unsupported(`Nothing to read breadth from: ${notRead.join('; ')}.`, { not_read: notRead.join('; ') });
  return combined(
    'breadth',
    parts,
    notRead,
    evidence,
    `${parts.map((p) => p.says).join('; ')}.`.replace(/^./, (c) => c.toUpperCase()),
    isAvailable(modifiers) ? (modifiers.contradictory ?? 0) > 0 : modifiers.contradictory === true,
  );
}

/** Fewer autocomplete topics than this, with no brand list beside them, are too few to call a space open or crowded. */
export const FEW_TOPICS = 3;

/**
 * What the pressure says of the space. "Crowded" is said only when brands or
 * businesses show it (their pressure above half): comparison words alone
 * ("vs", "alternative") say people weigh options, not who offers them. With no
 * brand named, the sentence says what the evidence does show, or that it is
 * too thin to tell.
 */
function crowding(brandParts: Part[], comparisonParts: Part[], fewTopicsOnly: boolean): string {
  const brand = brandParts.length ? weighted(brandParts) : null;
  const comparison = comparisonParts.length ? weighted(comparisonParts) : null;
  if (brand !== null && brand > 0.5) return ': a crowded space';
  if (comparison !== null && comparison > 0.5)
    return brand === null
      ? ': many searches compare options, but no brand evidence was read, so the space is not called crowded'
      : ': many searches compare options, yet few name a brand or business: not called crowded';
  if (fewTopicsOnly) return ` (fewer than ${FEW_TOPICS} topics: too few to tell whether businesses serve it)`;
  return '';
}

export interface WhitespaceInput {
  comparisons: SignalInput;
  brands: { autocomplete: Reading<TopicSignals>; lists: Reading<TermShare> };
}

/**
 * Whitespace: the inverse of competition. Comparison pressure (searches that
 * compare options) and brand pressure (listed queries or autocomplete topics
 * that name a business): the stronger decides; a half with nothing to read counts
 * neither in the score nor in the strength.
 */
export function scoreWhitespace(input: WhitespaceInput | null): DimensionScore {
  if (!input) return unsupported('needs the modifier comparison, autocomplete topics or related queries to measure competition');
  const compared = signalParts('competition', input.comparisons);
  const brandParts: Part[] = [];
  const notRead = [...compared.notRead];
  const evidence: Evidence = { ...compared.evidence };
  const { autocomplete, lists } = input.brands;
  if (isAvailable(lists) && lists.total > 0) {
    brandParts.push({
      source: 'related queries',
      score: clamp01(lists.share / BRAND_SATURATION),
      strength: 1,
      says: `${wholePercent(lists.share)} of related queries name a brand`,
    });
    Object.assign(evidence, {
      brand_list_source: `related queries listed by ${input.comparisons.listsFrom ?? 'Google'}`,
      brand_share: lists.share,
      brand_examples: lists.examples.join(' | ') || null,
    });
  }
  if (isAvailable(autocomplete) && autocomplete.topics > 0) {
    const share = autocomplete.brand_topics / autocomplete.topics;
    brandParts.push({
      source: 'autocomplete',
      score: clamp01(share / BRAND_SATURATION),
      strength: AUTOCOMPLETE_STRENGTH,
      says: `${autocomplete.brand_topics} of ${autocomplete.topics} autocomplete topics name a business${autocomplete.brand_examples[0] ? ` (${autocomplete.brand_examples[0]})` : ''}`,
    });
    Object.assign(evidence, { brand_topics: autocomplete.brand_topics, autocomplete_topics: autocomplete.topics });
  } else notRead.push(`autocomplete: ${isAvailable(autocomplete) ? 'Google knows no topic for the phrase' : autocomplete.unavailable}`);
  const fewTopicsOnly =
    brandParts.length === 1 && brandParts[0]!.source === 'autocomplete' && isAvailable(autocomplete) && autocomplete.topics < FEW_TOPICS;
  const halves = [compared.parts, brandParts].filter((p) => p.length > 0);
  if (halves.length === 0) return unsupported(`Nothing to read competition from: ${notRead.join('; ')}.`, { not_read: notRead.join('; ') });
  // A space crowded by brands is crowded whatever the comparisons say (and the reverse): the stronger
  // pressure decides. (The mean of the two scored pizza 0.667, "room to enter", beside 68 % brand queries.)
  // With one half unread, its pressure is unknown, not zero: the score is 1 − the other half's.
  const pressure = Math.max(...halves.map(weighted));
  // The unread half counts as no evidence in the strength; a source that contradicted itself lowers it.
  const strength =
    (halves.reduce((s, p) => s + Math.max(...p.map((x) => x.strength)), 0) / 2) * (compared.contradicted ? CONTRADICTION_STRENGTH : 1);
  const all = [...compared.parts, ...brandParts];
  const caveat = compared.contradicted ? ' The modifier comparison was not read: its numbers contradict each other (see not_read).' : '';
  return {
    score: round3(1 - pressure),
    evidence: {
      sources: [...new Set(all.map((p) => p.source))].join(' + '),
      ...evidence,
      ...(notRead.length ? { not_read: notRead.join('; ') } : {}),
    },
    explanation: `${all.map((p) => p.says).join('; ')}${crowding(brandParts, compared.parts, fewTopicsOnly)}.${caveat}`.replace(/^./, (c) =>
      c.toUpperCase(),
    ),
    strength: round3(strength),
  };
}
