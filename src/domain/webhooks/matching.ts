// Which subscriptions an event goes to. `matches` is the definition; the index
// finds the same set without scanning every subscription.

export interface Criteria {
  minScore: number | null;
  categories: readonly string[];
  sources: readonly string[];
  keywords: readonly string[];
  eventTypes: readonly string[];
}

export interface SubscriptionCriteria extends Criteria {
  id: string;
}

export interface MatchableEvent {
  type: string;
  category: string;
  source: string;
  score: number;
  /** Lower-cased text the keywords are looked for in (title, idea, keywords). */
  text: string;
}

/** Empty lists mean "any". Keywords match as whole words or phrases, case-insensitively. */
export function matches(c: Criteria, e: MatchableEvent): boolean {
  if (c.eventTypes.length > 0 && !c.eventTypes.includes(e.type)) return false;
  if (c.minScore !== null && e.score < c.minScore) return false;
  if (c.categories.length > 0 && !c.categories.includes(e.category)) return false;
  if (c.sources.length > 0 && !c.sources.includes(e.source)) return false;
  if (c.keywords.length > 0) {
    const text = ` ${e.text} `;
    if (!c.keywords.some((k) => text.includes(` ${k.toLowerCase()} `))) return false;
  }
  return true;
}

export function eventText(parts: ReadonlyArray<string>): string {
  return parts
    .join(' ')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

const MAX_PHRASE_WORDS = 3;

/**
 * Subscriptions with keywords are found through their keywords (the event's
 * 1–3-word phrases are looked up); the others are grouped by category ("*"
 * for any), each group sorted by minimum score, so an event looks only at the
 * prefix whose minimum it meets. Every candidate is then checked in full.
 */
export class SubscriptionIndex {
  private readonly groups = new Map<string, { minScores: Float64Array; subs: SubscriptionCriteria[] }>();
  private readonly byKeyword = new Map<string, SubscriptionCriteria[]>();
  /** Keywords longer than MAX_PHRASE_WORDS words: rare, checked one by one. */
  private readonly longKeywords: SubscriptionCriteria[] = [];
  readonly size: number;

  constructor(subscriptions: readonly SubscriptionCriteria[]) {
    const byKey = new Map<string, SubscriptionCriteria[]>();
    for (const s of subscriptions) {
      if (s.keywords.length > 0) {
        for (const k of new Set(s.keywords.map((x) => x.toLowerCase().trim()))) {
          if (k.split(/\s+/).length > MAX_PHRASE_WORDS) {
            this.longKeywords.push(s);
            continue;
          }
          let list = this.byKeyword.get(k);
          if (!list) this.byKeyword.set(k, (list = []));
          list.push(s);
        }
        continue;
      }
      for (const key of s.categories.length > 0 ? s.categories : ['*']) {
        let list = byKey.get(key);
        if (!list) byKey.set(key, (list = []));
        list.push(s);
      }
    }
    for (const [key, list] of byKey) {
      list.sort((a, b) => (a.minScore ?? -1) - (b.minScore ?? -1));
      this.groups.set(key, { minScores: Float64Array.from(list.map((s) => s.minScore ?? -1)), subs: list });
    }
    this.size = subscriptions.length;
  }

  match(event: MatchableEvent): string[] {
    const out = new Set<string>();
    const words = event.text.split(' ').filter(Boolean);
    for (let n = 1; n <= MAX_PHRASE_WORDS; n += 1) {
      for (let i = 0; i + n <= words.length; i += 1) {
        const list = this.byKeyword.get(words.slice(i, i + n).join(' '));
        if (list) for (const s of list) if (!out.has(s.id) && matches(s, event)) out.add(s.id);
      }
    }
    for (const s of this.longKeywords) if (!out.has(s.id) && matches(s, event)) out.add(s.id);
    for (const key of [event.category, '*']) {
      const group = this.groups.get(key);
      if (!group) continue;
      // First index whose minimum is above the score: everything before it qualifies on score.
      let lo = 0;
      let hi = group.minScores.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (group.minScores[mid]! <= event.score) lo = mid + 1;
        else hi = mid;
      }
      for (let i = 0; i < lo; i += 1) {
        const s = group.subs[i]!;
        if (!out.has(s.id) && matches(s, event)) out.add(s.id);
      }
    }
    return [...out];
  }
}
