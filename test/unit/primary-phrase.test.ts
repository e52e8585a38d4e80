// The primary phrase against a labelled set (test/fixtures/research/primary-phrases.tsv):
//   held-out     40 founders' ideas written before the method was tuned (2026-11-28; since tuned on)
//   fresh        20 more, written after the first held-out measurement (since tuned on)
//   fresh-2-*    40 more, written on 2026-11-28 before the second round of changes and measured
//                first (37/40 among the measured, 33/40 first by prior); then split: the method was
//                tuned on fresh-2-tuning only, fresh-2-held-out's misses were never looked at
//   fresh-3-*    42 more, written on 2026-11-28 before the third round of changes and measured first
//                (40/42 among the measured, 22/42 first by prior); odd rows tuning, even rows held-out,
//                the held-out half measured once at the end
//   fresh-4-*    64 more, written and committed on 2026-11-28 before the fourth round and measured first
//                (28/32 and 27/32 among the measured, 14/32 and 17/32 first by prior); first 32 rows
//                tuning, last 32 held-out, the held-out half measured once at the end of the round, its
//                misses unseen until then (17/32 and 27/32, blind); then tuned on in a fifth round
//   fresh-5      40 more, written after that measurement and committed before being measured (blind,
//                misses never printed): after the fourth round, and again after the fifth
//   fresh-6      30 more, written after the fifth round, committed, measured once blind, no change after;
//                tuned on in the sixth round
//   fresh-7      40 more, written and committed before the sixth round's first change, measured once, blind,
//                at its end (counts only)
//   fresh-10     40 more, written before the head-and-modifier round, measured once, blind, at its end
//   fresh-11     40 more, written and committed before the learned ranker (phrase-ranker.ts) was made, measured
//                once, blind, at the end (counts only)
//   fresh-12     40 more, written and committed (2026-11-29) before the verb-and-modifier round, measured once, blind,
//                at its end (counts only); tuned on in the lead-noun round
//   fresh-13     40 more, written and committed (2026-11-29) before the lead-noun round, measured once, blind, at its
//                end (counts only)
//   fresh-14     40 more in rarer niches, written and committed (2026-11-29 06:45) and measured once, blind, on the code
//                as it stood; its misses read since
//   fresh-15     40 more, written and committed (2026-11-29 06:56) before the agent-shaped-things change, measured once,
//                blind, after it (counts only)
//   held-in, tuning, quick-start: the ideas the method was built on, the among them
// each with the phrases (any of) a person would search to find such a product.
// Two figures: an acceptable phrase among the four step 4 measures, and FIRST
// by prior (what is chosen where popularity cannot be measured: a single
// candidate, a provider without comparisons). docs/research.md publishes them.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { choosePrimary, measuredPhrases, phraseCandidates } from '../../src/domain/research/phrase-choice.js';
import { actNouns, madeFromVerb, nounChunks, phraseForm, stripMarkup } from '../../src/domain/research/noun-phrases.js';
import { agentNoun } from '../../src/domain/research/phrase-words.js';
import { SyntheticTrendsProvider } from '../../src/providers/synthetic/provider.js';
import { runSteps } from '../support/steps-harness.js';

const rows = readFileSync(new URL('../fixtures/research/primary-phrases.tsv', import.meta.url), 'utf8')
  .split('\n')
  .filter((l) => l && !l.startsWith('#'))
  .map((l) => {
    const [set, idea, expected] = l.split('\t');
    return { set: set!, idea: idea!, expected: expected!.split(' | ') };
  });

function measure(set: string) {
  const of = rows.filter((r) => r.set === set);
  const results = of.map((r) => {
    const candidates = phraseCandidates(r.idea, []);
    const first = choosePrimary(candidates, null).primary;
    return { ...r, first, measured: measuredPhrases(candidates), hitFirst: r.expected.includes(first) };
  });
  return {
    of: of.length,
    among_measured: results.filter((r) => r.measured.some((p) => r.expected.includes(p))).length,
    first_by_prior: results.filter((r) => r.hitFirst).length,
    misses: results.filter((r) => !r.hitFirst).map((r) => `${r.idea} → ${r.first} (expected ${r.expected.join(' | ')})`),
  };
}

const world = new SyntheticTrendsProvider(() => new Date('2026-11-28T00:00:00Z'));
/** Step 4's choice with the synthetic world's popularity: one comparison of the four with the anchor. */
async function simulatedChoice(idea: string): Promise<string> {
  const candidates = phraseCandidates(idea, []);
  const asked = measuredPhrases(candidates);
  const answer = await world.fetch({ kind: 'interestOverTime', keywords: [...asked, 'weather'], timeframe: '12m', geo: '' });
  if (answer.kind !== 'interestOverTime') throw new Error('expected interest over time');
  const means = Object.fromEntries(asked.map((p, i) => [p, answer.points.reduce((s, pt) => s + pt.values[i]!, 0) / answer.points.length]));
  return choosePrimary(candidates, asked.length > 1 ? means : null).primary;
}

describe('the primary phrase on a labelled set of founders’ ideas', () => {
  it('held-out: an acceptable phrase among the four measured for 40/40, first by prior for ≥ 39/40', async () => {
    const held = measure('held-out');
    let simulated = 0;
    const simulatedMisses: string[] = [];
    for (const r of rows.filter((x) => x.set === 'held-out')) {
      const chosen = await simulatedChoice(r.idea);
      if (r.expected.includes(chosen)) simulated += 1;
      else simulatedMisses.push(`${r.idea} → ${chosen}`);
    }
    const fresh = measure('fresh');
    const tuning = ['held-in', 'tuning', 'quick-start'].map(measure);
    console.log(
      JSON.stringify(
        {
          held_out: { ...held, chosen_in_the_synthetic_world: simulated, simulated_misses: simulatedMisses },
          fresh,
          tuning: tuning.map(({ misses: _, ...t }) => t),
        },
        null,
        1,
      ),
    );
    expect(held.of).toBe(40);
    // 2026-11-28, third round: 40/40 and 39/40 (before it: 39/40 and 38/40); fourth round: 40/40 and 40/40.
    expect(held.among_measured).toBeGreaterThanOrEqual(40);
    expect(held.first_by_prior).toBeGreaterThanOrEqual(40);
    // A simulated research chooses about as well (its popularity follows how people type): 38/40 on 2026-11-28 after the
    // fourth round (36/40 after the third, 35/40 before it). The floor stays 36: the synthetic world is changed in parallel.
    expect(simulated).toBeGreaterThanOrEqual(36);
    // The first fresh ideas (16/20 before the second round, 17/20 after it, 18/20 after the third; tuned on).
    // 17/20 with the head-and-modifier parse (2026-11-28): "Sustainable sneaker resale platform" keeps its
    // differentiator ("sustainable sneaker resale"), a phrase its labels do not list.
    expect(fresh.first_by_prior).toBeGreaterThanOrEqual(17);
    // 18/20 with the verb-and-modifier round (2026-11-29).
    // held-in: 28/32 first by prior after the third round (26 before it).
    expect(tuning[0]!.first_by_prior).toBeGreaterThanOrEqual(28);
    expect(tuning[2]!.first_by_prior).toBe(tuning[2]!.of);
  });

  it('fresh-2-held-out: an acceptable phrase among the four measured for ≥ 19/20, first by prior for ≥ 18/20', () => {
    const held = measure('fresh-2-held-out');
    const tuned = measure('fresh-2-tuning');
    // Printed as counts only: the held-out half's misses are not shown, so no one tunes on them.
    console.log(JSON.stringify({ fresh_2_held_out: { ...held, misses: held.misses.length }, fresh_2_tuning: tuned }, null, 1));
    expect(held.of).toBe(20);
    // 2026-11-28: 18/20 and 16/20 after the second round (before it: 18/20 and 17/20); 18/20 and 17/20 after the third. docs/research.md.
    // 19/20 and 18/20 after the sixth round, which tuned on every older set's misses.
    expect(held.among_measured).toBeGreaterThanOrEqual(19);
    expect(held.first_by_prior).toBeGreaterThanOrEqual(18);
    expect(tuned.first_by_prior).toBeGreaterThanOrEqual(20);
  });

  it('fresh-3-held-out: an acceptable phrase among the four measured for ≥ 20/21, first by prior for ≥ 17/21', () => {
    const held = measure('fresh-3-held-out');
    const tuned = measure('fresh-3-tuning');
    // Counts only for the held-out half, as above.
    console.log(JSON.stringify({ fresh_3_held_out: { ...held, misses: held.misses.length }, fresh_3_tuning: tuned }, null, 1));
    expect(held.of).toBe(21);
    expect(tuned.of).toBe(21);
    // 2026-11-28, measured once after the third round: 19/21 and 14/21 (before it: 19/21 and 10/21); 19/21 and
    // 16/21 after the fourth (its counts, not its misses, were printed while tuning). docs/research.md.
    // 20/21 and 17/21 after the sixth round; 20/21 and 18/21 with the head-and-modifier parse.
    // 20/21 and 19/21 with the verb-and-modifier round (2026-11-29).
    expect(held.among_measured).toBeGreaterThanOrEqual(20);
    expect(held.first_by_prior).toBeGreaterThanOrEqual(19);
    // Tuned on: 21/21 and 18/21 (before: 21/21 and 12/21); 21/21 after the fourth round.
    expect(tuned.among_measured).toBeGreaterThanOrEqual(21);
    expect(tuned.first_by_prior).toBeGreaterThanOrEqual(21);
  });

  it('fresh-4-held-out (blind at the fourth round, tuned on since): among the four measured for ≥ 29/32, first by prior for ≥ 23/32', () => {
    const held = measure('fresh-4-held-out');
    const tuned = measure('fresh-4-tuning');
    console.log(JSON.stringify({ fresh_4_held_out: { ...held, misses: held.misses.length }, fresh_4_tuning: tuned }, null, 1));
    expect(held.of).toBe(32);
    expect(tuned.of).toBe(32);
    // 2026-11-28, measured once after the fourth round, blind: 27/32 and 17/32, as before it (no gain on unseen ideas);
    // 27/32 and 20/32 after the fifth round, which was tuned on its misses. docs/research.md.
    // 29/32 and 23/32 after the sixth.
    // 31/32 and 26/32 with the verb-and-modifier round (2026-11-29).
    expect(held.among_measured).toBeGreaterThanOrEqual(31);
    expect(held.first_by_prior).toBeGreaterThanOrEqual(26);
    // Tuned on: 30/32 and 25/32 (before: 28/32 and 14/32); 31/32 and 26/32 after the sixth round; 31/32 and 27/32 on
    // 2026-11-29 (28 before that round: "rent splitter" now comes first, which the labels do not list).
    expect(tuned.among_measured).toBeGreaterThanOrEqual(31);
    expect(tuned.first_by_prior).toBeGreaterThanOrEqual(27);
  });

  it('fresh-5 (blind until the sixth round, tuned on in it): among the four measured for ≥ 38/40, first by prior for ≥ 26/40', () => {
    const held = measure('fresh-5');
    console.log(JSON.stringify({ fresh_5: { ...held, misses: held.misses.length } }, null, 1));
    expect(held.of).toBe(40);
    // 2026-11-28, blind: 37/40 and 25/40 after the fourth round (the code before it: 36/40 and 22/40), the same after the fifth.
    // 38/40 and 26/40 after the sixth round, which saw its misses.
    // 38/40 and 30/40 with the verb-and-modifier round (2026-11-29).
    expect(held.among_measured).toBeGreaterThanOrEqual(38);
    expect(held.first_by_prior).toBeGreaterThanOrEqual(30);
  });

  it('fresh-6 (blind until the sixth round, tuned on in it): among the four measured for ≥ 28/30, first by prior for ≥ 22/30', () => {
    const held = measure('fresh-6');
    console.log(JSON.stringify({ fresh_6: { ...held, misses: held.misses.length } }, null, 1));
    expect(held.of).toBe(30);
    // 2026-11-28, measured once, blind, after the fifth round: 26/30 and 21/30 (the code before the fourth round: 26/30 and 19/30).
    // 28/30 and 22/30 after the sixth round, which saw its misses; 29/30 and 23/30 with the head-and-modifier parse.
    expect(held.among_measured).toBeGreaterThanOrEqual(29);
    expect(held.first_by_prior).toBeGreaterThanOrEqual(23);
  });

  it('fresh-7 (blind at the sixth round, tuned on since): among the four measured for ≥ 31/40, first by prior for ≥ 25/40', () => {
    const held = measure('fresh-7');
    // Counts only: its misses are not printed, so no one tunes on them.
    console.log(JSON.stringify({ fresh_7: { ...held, misses: held.misses.length } }, null, 1));
    expect(held.of).toBe(40);
    // 2026-11-28, measured once, blind, at the end of the sixth round: 29/40 and 20/40 (the code before it: 28/40 and
    // 20/40). Far from the target (39/40 and 36/40). docs/research.md.
    // 31/40 and 25/40 with the head-and-modifier parse, whose round read its misses (2026-11-28).
    // 35/40 and 29/40 with the verb-and-modifier round, which read its misses (2026-11-29).
    expect(held.among_measured).toBeGreaterThanOrEqual(35);
    expect(held.first_by_prior).toBeGreaterThanOrEqual(29);
  });

  it('fresh-10 (written before the head-and-modifier parse, measured once, blind): among the four ≥ 31/40, first by prior ≥ 20/40', () => {
    const held = measure('fresh-10');
    // Counts only: its misses are not printed here (docs/research.md lists their classes).
    console.log(JSON.stringify({ fresh_10: { ...held, misses: held.misses.length } }, null, 1));
    expect(held.of).toBe(40);
    // 2026-11-28, measured once, blind, at the end of the round: 31/40 and 20/40 (the code before it: 30/40 and
    // 17/40). Far from the target (39/40 and 36/40). docs/research.md.
    // 38/40 and 31/40 with the verb-and-modifier round, which read its misses (2026-11-29); 38/40 and 32/40 with the
    // lead-noun round ("gluten-free snacks": a hyphenated kind before a lone noun).
    expect(held.among_measured).toBeGreaterThanOrEqual(38);
    expect(held.first_by_prior).toBeGreaterThanOrEqual(32);
  });

  it('fresh-11 (written before the learned ranker, measured once, blind): among the four ≥ 34/40, first by prior ≥ 21/40', () => {
    const held = measure('fresh-11');
    // Counts only: its misses are not printed here (docs/research.md lists their classes).
    console.log(JSON.stringify({ fresh_11: { ...held, misses: held.misses.length } }, null, 1));
    expect(held.of).toBe(40);
    // 2026-11-28, measured once, blind, at the end of the learned-ranker round: 34/40 and 21/40 with the rules (the
    // default order), the same with the learned ranker. Far from the target (39/40 and 36/40). docs/research.md.
    // 36/40 and 30/40 with the verb-and-modifier round, which read its misses (2026-11-29).
    expect(held.among_measured).toBeGreaterThanOrEqual(36);
    expect(held.first_by_prior).toBeGreaterThanOrEqual(30);
  });

  it('fresh-12 (written before the verb-and-modifier round, measured once, blind): among the four ≥ 35/40, first by prior ≥ 25/40', () => {
    const held = measure('fresh-12');
    // Counts only: its misses are not printed, so no one tunes on them.
    console.log(JSON.stringify({ fresh_12: { ...held, misses: held.misses.length } }, null, 1));
    expect(held.of).toBe(40);
    // 2026-11-29, measured once, blind, at the end of the verb-and-modifier round: 35/40 and 25/40 (the code before it:
    // 34/40 and 24/40). Far from the target (39/40 and 36/40). docs/research.md.
    // 36/40 and 29/40 with the lead-noun round, which read its misses (2026-11-29): no longer blind.
    expect(held.among_measured).toBeGreaterThanOrEqual(36);
    expect(held.first_by_prior).toBeGreaterThanOrEqual(29);
  });

  it('fresh-13 (written before the lead-noun round, measured once, blind): among the four ≥ 32/40, first by prior ≥ 22/40', () => {
    const held = measure('fresh-13');
    // Counts only: its misses are not printed, so no one tunes on them.
    console.log(JSON.stringify({ fresh_13: { ...held, misses: held.misses.length } }, null, 1));
    expect(held.of).toBe(40);
    // 2026-11-29, measured once, blind, at the end of the lead-noun round: 32/40 and 22/40 (the code before it, f0b66d9:
    // 32/40 and 21/40). Far from the target (39/40 and 36/40). docs/research.md.
    expect(held.among_measured).toBeGreaterThanOrEqual(32);
    expect(held.first_by_prior).toBeGreaterThanOrEqual(22);
  });

  it('fresh-14 (written 2026-11-29 06:45, measured once, blind, on the code as it stood; read since): among the four ≥ 32/40, first by prior ≥ 19/40', () => {
    const held = measure('fresh-14');
    console.log(JSON.stringify({ fresh_14: { ...held, misses: held.misses.length } }, null, 1));
    expect(held.of).toBe(40);
    // 2026-11-29 06:58, blind, at 636951c's method: 32/40 and 19/40, rarer niches than fresh-13's. Its misses were then read
    // (the agent-shaped things of WordNet came of them), so it is no longer blind. docs/research.md.
    expect(held.among_measured).toBeGreaterThanOrEqual(32);
    expect(held.first_by_prior).toBeGreaterThanOrEqual(19);
  });

  it('fresh-15 (written 2026-11-29 06:56, measured once, blind): among the four ≥ 37/40, first by prior ≥ 31/40', () => {
    const held = measure('fresh-15');
    // Counts only: its misses are not printed, so no one tunes on them.
    console.log(JSON.stringify({ fresh_15: { ...held, misses: held.misses.length } }, null, 1));
    expect(held.of).toBe(40);
    // 2026-11-29 07:04, measured once, blind, after the agent-shaped-things change (which changed no choice on the 564
    // older ideas): 37/40 and 31/40. Below the target (39/40 and 36/40). docs/research.md.
    expect(held.among_measured).toBeGreaterThanOrEqual(37);
    expect(held.first_by_prior).toBeGreaterThanOrEqual(31);
  });

  it('a hyphenated kind stays with a lone noun; who is booked is the product; a plural after "for" is a noun (2026-11-29)', () => {
    const first = (idea: string) => phraseCandidates(idea, [])[0]!.phrase;
    // One noun says too little: the hyphenated word that says which kind goes with it, before a form too.
    expect(first('Solar-powered backpack for hikers')).toBe('solar-powered backpack');
    expect(first('Gluten-free pizza delivery')).toBe('gluten-free pizza');
    expect(first('3D-printed prosthetics for children')).toBe('3d-printed prosthetics');
    // Not a word that says whom it suits, nor a generic one, nor before a noun that is not the head.
    expect(first('Eco-friendly diaper subscription')).toBe('diaper subscription');
    expect(first('Allergy-friendly restaurant finder')).toBe('restaurant finder');
    expect(first('Online marketplace for second-hand baby strollers')).toBe('baby strollers');
    expect(first('Last-minute babysitter booking app')).toBe('babysitter booking');
    // A booking form before "for": the people booked are what is searched; a subscription's people are not.
    expect(first('Booking platform for freelance makeup artists')).toBe('freelance makeup artists');
    expect(first('Subscription box for dog owners')).toBe('dog subscription');
    // "boats" closing the idea after "for" is a noun, though the tagger reads a verb; a renting model makes it a rental.
    expect(first('Airbnb for boats')).toBe('boat rental');
    expect(agentNoun('collect')).toBe('collector');
    expect(agentNoun('track')).toBe('tracker');
  });

  it('a verb that says the need gives its act after its object (WordNet names the act)', () => {
    const first = (idea: string) => phraseCandidates(idea, [])[0]!.phrase;
    const measured = (idea: string) => measuredPhrases(phraseCandidates(idea, []));
    expect(first('A service that digitizes old family photos and VHS tapes')).toBe('photo digitizing');
    expect(first('Marketplace for renting out your car to neighbours by the hour')).toBe('car rental');
    // A tool's verb gives its agent noun first since 2026-11-29 ("rent splitter", which the labels do not list: a miss on
    // fresh-4-held-out; "essay grader", which they do); the act stays among the four measured.
    expect(first('An app to split rent and utility bills between roommates')).toBe('rent splitter');
    expect(measured('An app to split rent and utility bills between roommates')).toContain('rent splitting');
    expect(first('An AI that grades student essays for teachers')).toBe('essay grader');
    expect(measured('An AI that grades student essays for teachers')).toContain('essay grading');
    expect(actNouns('rent')[0]).toBe('rental');
    expect(actNouns('inspect')[0]).toBe('inspection');
    // The customer acquires what a verb like "rent" names (no "out"): the thing first, its act next to it.
    expect(first('Marketplace for renting camping gear between neighbours')).toBe('camping gear');
    expect(measured('Marketplace for renting camping gear between neighbours')).toContain('camping gear rental');
    // A verb that says only that the product does something gives no act ("finds", "helps").
    expect(measured('App that finds last-minute padel court bookings').some((p) => /finding/.test(p))).toBe(false);
    // A lone noun its modifier says the kind of stays the subject.
    expect(first('An app that helps freelancers track their billable hours and send invoices')).toBe('billable hours');
  });

  it('what a one-noun subject is for goes before it; tagger slips read as English reads them', () => {
    const first = (idea: string) => phraseCandidates(idea, [])[0]!.phrase;
    const all = (idea: string) => phraseCandidates(idea, [], 50).map((c) => c.phrase);
    expect(first('Recruitment platform for nurses that pays sign-on bonuses')).toBe('nurse recruitment');
    expect(first('Translation service for legal documents')).toBe('document translation');
    expect(all('Telehealth for pets').slice(0, 4)).toContain('pet telehealth');
    expect(first('Bookkeeping service for freelance artists')).toBe('bookkeeping');
    // A verb of wanting after a plural is a verb; an -ing word before "nationwide" is what the bakery does.
    expect(all('An app that tells you when your houseplants need sunlight or water')).not.toContain('houseplants need');
    expect(all('Gluten-free bakery delivering nationwide')).not.toContain('bakery delivering');
    // A capital word opening the idea is a company only where the tagger knows it as one.
    expect(first('Influencer marketing platform for local restaurants')).toBe('influencer marketing');
    expect(first('Hearing aid comparison site for seniors')).toBe('hearing aid');
  });

  it('a name the language made of two words stays whole (WordNet): not a modifier and its noun', () => {
    const first = (idea: string) => phraseCandidates(idea, [])[0]!.phrase;
    const all = (idea: string) => phraseCandidates(idea, [], 50).map((c) => c.phrase);
    expect(first('Mental health app for teenagers')).toBe('mental health');
    expect(first('Solar panel installation quotes')).toBe('solar panel');
    expect(first('Real estate photography booking')).toBe('real estate photography');
    // A relational adjective classifies as a noun does; "online", "local" stay modifiers.
    expect(first('Medical transcription service for clinics')).toBe('medical transcription');
    expect(first('Online piano lessons for kids')).toBe('piano lessons');
    expect(nounChunks('Social media scheduling').map((c) => c.tokens.map((t) => t.role))).toEqual([['noun', 'noun', 'noun']]);
    // No candidate splits one ("health" of "mental health", "estate photography").
    expect(all('Mental health app for teenagers')).not.toContain('health');
    expect(all('Real estate photography booking')).not.toContain('estate photography');
    // A noun that names a kind of business is part of a name WordNet lists ("power tools").
    expect(first('Marketplace for renting power tools between neighbours')).toBe('power tools');
    // A verb the tagger reads only as a noun, after "to" and before its object.
    expect(all('App that reminds you to water your plants')).not.toContain('water');
  });

  it('"X for Y": the audience after "for" weighs less; a form-only product is searched with its subject', () => {
    const first = (idea: string) => phraseCandidates(idea, [])[0]!.phrase;
    expect(first('Subscription box for coffee lovers')).toBe('coffee subscription');
    expect(measuredPhrases(phraseCandidates('Subscription box for coffee lovers', []))).toEqual(
      expect.arrayContaining(['coffee subscription', 'coffee box']),
    );
    expect(first('Subscription box for craft beer lovers')).toBe('craft beer');
    expect(first('Subscription box for dog owners')).toBe('dog subscription');
    expect(first('Meal kits for busy parents')).toBe('meal kits');
    expect(first('Laptop rental for students')).toBe('laptop rental');
    expect(first('Accounting software for small businesses')).toBe('accounting software');
    expect(first('Yoga classes for seniors')).toBe('yoga classes');
    // The people after "for" are never the product's phrase while the product has a subject.
    for (const idea of ['Meal delivery for seniors', 'Budget planner for students', 'Dog walking for busy professionals'])
      expect(first(idea), idea).not.toMatch(/seniors|students|professionals/);
    // A thing shaped as an agent noun is not people (WordNet has no person sense of it): "flowers", "typewriters".
    const people = (idea: string) => nounChunks(idea).flatMap((c) => c.tokens.filter((t) => t.people).map((t) => t.word));
    expect(people('A marketplace for leftover wedding flowers')).toEqual([]);
    expect(measuredPhrases(phraseCandidates('Auction site for vintage typewriters', []))).toContain('typewriter auction');
    expect(people('Subscription box for dog owners')).toEqual(['owners']);
    expect(people('Insurance for dog walkers')).toEqual(['walkers']);
  });

  it('a noun made from a verb makes a compound branch left; an -ing word between nouns is a gerund', () => {
    const first = (idea: string) => phraseCandidates(idea, [])[0]!.phrase;
    // A two-word subject with the act it is sold as is one compound, first, since 2026-11-29.
    expect(first('Wedding dress rental for brides on a budget')).toBe('wedding dress rental');
    expect(first('Restaurant inventory management software')).toBe('inventory management');
    expect(first('Bike fitting studio for triathletes')).toBe('bike fitting');
    expect(first('Sleep tracking ring')).toBe('sleep tracking');
    expect(madeFromVerb('rental')).toBe(true);
    expect(madeFromVerb('vaccination')).toBe(true);
    expect(madeFromVerb('station')).toBe(false);
    expect(madeFromVerb('animal')).toBe(false);
  });

  it('the issue’s ideas: the product, not a modifier, a verb or markup', () => {
    const first = (idea: string) => phraseCandidates(idea, [])[0]!.phrase;
    expect(first('App that finds last-minute padel court bookings')).toBe('padel court');
    expect(first('Marketplace for renting camping gear between neighbours')).toBe('camping gear');
    // The differentiator stays: the founder asks about vegan pet food, not pet food (founder review, 2026-11-28).
    expect(first('Subscription box for vegan pet food')).toBe('vegan pet food');
    expect(first('Online piano lessons for kids')).toBe('piano lessons');
    expect(first('Mobile dog grooming van')).toBe('dog grooming');
    expect(first('Virtual interior design consultations')).toBe('interior design');
    expect(first('Home EV charger installation')).toBe('ev charger');
    expect(first('Second-hand furniture resale')).toBe('furniture resale');
    // The audience weighs less: what it sells on says whose bookkeeping it is, never the audience alone.
    const etsy = phraseCandidates('AI bookkeeping for Etsy sellers', []).map((c) => c.phrase);
    expect(etsy[0]).toBe('ai bookkeeping');
    expect(etsy.indexOf('etsy bookkeeping')).toBeLessThan(etsy.indexOf('etsy sellers'));
    const script = phraseCandidates('<script>alert(1)</script> Meal prep delivery for athletes', []);
    expect(script[0]!.phrase).toBe('meal prep');
    expect(script.some((c) => /script|alert/.test(c.phrase))).toBe(false);
    // No candidate starts or ends with a verb, a determiner or an adverb.
    const phrases = phraseCandidates('App that quickly finds the cheapest last-minute padel court bookings', [], 50).map((c) => c.phrase);
    expect(phrases.filter((p) => /\b(finds|that|the|quickly)\b/.test(p))).toEqual([]);
    expect(phrases).toContain('last-minute padel court');
  });

  it('the people who use a product are not its phrase; a lone noun keeps the modifier that says which kind', () => {
    const first = (idea: string) => phraseCandidates(idea, [])[0]!.phrase;
    const all = (idea: string) => phraseCandidates(idea, [], 50).map((c) => c.phrase);
    // A clause's subject ("where landlords can …", "for restaurants to order …", "helps freelancers track …").
    expect(first('B2B platform for restaurants to order wholesale produce directly from farms')).toBe('wholesale produce');
    expect(first('An app that helps freelancers track their billable hours and send invoices')).toBe('billable hours');
    expect(all('An app that helps freelancers track their billable hours and send invoices')).not.toContain('freelancers track');
    // People met with people: the ones found are the service; met with anything else, they are it.
    expect(first('A platform that connects homeowners with vetted plumbers for emergency repairs')).toBe('plumbers');
    expect(first('Platform connecting freelance photographers with small businesses')).toBe('freelance photographers');
    // Anybody, and whose it is, are never a phrase.
    expect(all('I want to build a marketplace where people can hire someone to assemble their IKEA furniture')).not.toEqual(
      expect.arrayContaining(['people']),
    );
    expect(first('My idea: a subscription for razor blades')).toBe('razor blades');
    // A model named before "but for".
    expect(first('Tinder but for finding a gym buddy')).toBe('gym buddy');
    // People not after "for" can be the product; after it, they are who it is for.
    expect(first('Subscription box for craft beer lovers')).toBe('craft beer');
    // A lone noun is searched with a modifier that says which kind, not one that says where or how.
    expect(first('PetPal: a smart collar that tracks your cat’s activity and health')).toBe('smart collar');
    expect(first('Personal trainer marketplace for new mums')).toBe('personal trainer');
    expect(first('Marketplace for hiring local handymen')).toBe('handymen');
    expect(first('Parent-teacher communication platform for primary schools')).toBe('parent-teacher communication');
    // What people in the plural do is a verb, and so is a gerund after "I'm".
    expect(all('Carpooling app for parents doing school runs')).not.toContain('parents doing');
    expect(first("I'm thinking of a mobile coffee cart for corporate events")).toBe('coffee cart');
    expect(first('Skincare routine builder based on your skin type')).toBe('skincare routine');
    // Three nouns before "software" branch left; a subject before its form is singular.
    expect(first('Fleet maintenance software for small trucking companies')).toBe('fleet maintenance');
    const flowers = measuredPhrases(phraseCandidates('Subscription service delivering fresh flowers to offices every week', []));
    expect(flowers).toContain('flower subscription');
    expect(flowers).not.toContain('flowers subscription');
    expect(madeFromVerb('party')).toBe(false);
    expect(madeFromVerb('delivery')).toBe(true);
  });

  it('reads markup out and keeps hyphenated modifiers whole', () => {
    expect(stripMarkup('<b>Dog</b> walking <script>alert("x")</script>&amp; more')).not.toMatch(/[<>&]|alert/);
    expect(nounChunks('Last-minute flights').map((c) => c.tokens.map((t) => `${t.word}/${t.role}`))).toEqual([
      ['last-minute/modifier', 'flights/noun'],
    ]);
    // Nothing a search could be made of: the run is refused before it starts.
    expect(phraseCandidates('x', [])).toEqual([]);
    expect(phraseCandidates('the and of', [])).toEqual([]);
    expect(phraseForm('padel court')).toBe('name');
    expect(phraseForm('online piano')).toBe('modified');
    expect(phraseForm('finds last')).toBe('fragment');
    expect(phraseForm('renting camping')).toBe('fragment');
  });

  it('the founder review’s ideas: the differentiated subject first, never the audience or a vehicle', () => {
    const first = (idea: string) => phraseCandidates(idea, [])[0]!.phrase;
    const fair: Array<[string, string[]]> = [
      ['App that finds last-minute padel court bookings', ['padel court', 'padel court booking', 'padel court bookings']],
      ['Marketplace for renting camping gear between neighbours', ['camping gear', 'camping gear rental']],
      ['Subscription box for vegan pet food', ['vegan pet food']],
      ['AI bookkeeping for Etsy sellers', ['ai bookkeeping', 'etsy bookkeeping']],
      ['<script>alert(1)</script> dog walking app', ['dog walking']],
      ['mobile dog grooming van', ['dog grooming', 'mobile dog grooming']],
      ['online piano lessons', ['piano lessons', 'online piano lessons']],
      ['home EV charger installation', ['ev charger', 'ev charger installation', 'home ev charger']],
      ['second-hand furniture resale', ['second-hand furniture', 'furniture resale']],
    ];
    for (const [idea, phrases] of fair) expect(phrases, idea).toContain(first(idea));
    // A generic modifier lowers the phrase that keeps it below the bare subject.
    const piano = phraseCandidates('online piano lessons', []).map((c) => c.phrase);
    expect(piano.indexOf('piano lessons')).toBeLessThan(piano.indexOf('online piano lessons'));
    // The verb of a clause the tagger reads as a noun ("landlords screen tenants", "people swap houses") gives the need's act.
    expect(first('Helping landlords screen tenants faster')).toBe('tenant screening');
    expect(first('Website where people swap houses for vacations')).toMatch(/^house swap/);
  });

  it('popularity reorders only rephrasings of the differentiated phrase; the broader head only without measurable interest', () => {
    const candidates = phraseCandidates('Subscription box for vegan pet food', []);
    expect(candidates[0]!.phrase).toBe('vegan pet food');
    // Pet food searched far more: still vegan pet food.
    const kept = choosePrimary(candidates, { 'vegan pet food': 4, 'pet food': 95, vegan: 60 });
    expect(kept.primary).toBe('vegan pet food');
    // Vegan pet food not measurably searched: the broader pet food, and the reason says so.
    const broader = choosePrimary(candidates, { 'vegan pet food': 0, 'pet food': 95, vegan: 60 });
    expect(broader.primary).toBe('pet food');
    expect(broader.reason).toMatch(/^vegan pet food: no measurable interest; researched the broader pet food/);
    // A rephrasing that keeps the differentiator is chosen before any broader phrase ("padel court bookings", not "court bookings").
    const padel = phraseCandidates('App that finds last-minute padel court bookings', []);
    const rephrased = choosePrimary(padel, {
      'padel court': 0,
      'padel court bookings': 40,
      'court bookings': 90,
      'last-minute padel court': 0,
    });
    expect(rephrased.primary).toBe('padel court bookings');
    expect(rephrased.reason).not.toMatch(/broader/);
  });

  it('an operator keyword, then a trending search, is the phrase as given', () => {
    expect(phraseCandidates('AI receptionist', [], { trending: 'AI Receptionist' })[0]).toMatchObject({
      phrase: 'ai receptionist',
      trending: true,
    });
    const chosen = choosePrimary(phraseCandidates('AI receptionist', [], { trending: 'ai receptionist' }), { receptionist: 90 });
    expect(chosen.primary).toBe('ai receptionist');
    expect(chosen.reason).toMatch(/trending search/);
    // Without it, "AI" before a noun says which kind, as "vegan" does; alone ("an AI that writes …") it is the vehicle.
    expect(phraseCandidates('AI receptionist', [])[0]!.phrase).toBe('ai receptionist');
    expect(phraseCandidates('An AI that writes product descriptions for Shopify stores', [])[0]!.phrase).toBe('product descriptions');
  });
});

describe('a simulated research (the synthetic world) picks a fair phrase', () => {
  const world = new SyntheticTrendsProvider(() => new Date('2026-11-28T00:00:00Z'));
  const expected = new Map(rows.map((r) => [r.idea, r.expected]));
  for (const idea of [
    'App that finds last-minute padel court bookings',
    'Marketplace for renting camping gear between neighbours',
    'Subscription box for vegan pet food',
    '<script>alert(1)</script> Meal prep delivery for athletes',
    'Subscription box for coffee lovers',
  ])
    it(`"${idea}"`, async () => {
      const run = await runSteps(idea, (r) => world.fetch(r), { until: 'choose_primary' });
      const chosen = run.outputs.get('choose_primary');
      const prior = phraseCandidates(idea, [])[0]!.phrase;
      // Measured, and the same as the prior's choice or another acceptable phrase.
      expect(chosen.measured).not.toBeNull();
      expect(chosen.primary === prior || expected.get(idea)!.includes(chosen.primary), `${chosen.primary} (prior: ${prior})`).toBe(true);
      expect(expected.get(idea)).toContain(chosen.primary);
    });
  it('"Subscription box for vegan pet food" with pet food measured far above vegan pet food: vegan pet food', async () => {
    const idea = 'Subscription box for vegan pet food';
    const run = await runSteps(idea, (r) => world.fetch(r), { until: 'choose_primary' });
    const chosen = run.outputs.get('choose_primary');
    const means = chosen.measured!.means as Record<string, number>;
    expect(means['pet food']!).toBeGreaterThan(2 * means['vegan pet food']!);
    expect(chosen.primary).toBe('vegan pet food');
  });
});
