// What `insights evidence collect` gathers for each phrase of a validation set:
// the related queries Google lists (the embed flow) and the modifier comparison
// the research asks, through the same gateway the research uses (live Google:
// the trends queue, inside the routes' pace; a trends job is named by its
// request and day, so a phrase a run researched today costs nothing more).
// Waiting for Google is a sleep, never a failure, up to the caller's deadline.
import type { CollectedEvidence } from '../domain/scoring/evidence-fit.js';
import { modifierRequest } from '../domain/research/modifier-evidence.js';
import type { TrendsRequest, TrendsResponse } from '../domain/trends/answers.js';
import { TrendsFailedError, WaitingForTrendsError, type TrendsGateway } from '../providers/gateway.js';
import { sleepFor } from './queued-gateway.js';

/** The most phrases one collection takes (a validation set needs 30; Google's pace makes thousands days long). */
export const MAX_PHRASES = 500;
/** A phrase longer than this cannot carry its modifiers within Google's 100 characters per comparison item. */
export const MAX_PHRASE_CHARS = 80;

/** The phrases of a file: one per line, blank lines and lines starting with # left out; duplicates (any case) once. */
export function parsePhrases(text: string): { phrases: string[]; problems: string[] } {
  const problems: string[] = [];
  const seen = new Set<string>();
  const phrases: string[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const phrase = raw.trim().replace(/\s+/g, ' ');
    if (phrase === '' || phrase.startsWith('#')) return;
    if (phrase.length > MAX_PHRASE_CHARS) problems.push(`line ${i + 1}: longer than ${MAX_PHRASE_CHARS} characters`);
    else if (/[\p{Cc}\p{Cf}\uFFFD]/u.test(phrase)) problems.push(`line ${i + 1}: a control, invisible or undecodable character`);
    else if (/[\u0027\u2019]/.test(phrase))
      problems.push(
        `line ${i + 1}: an apostrophe (Google Trends leaves queries with one out of its data: write "womens shoes", not "women's shoes")`,
      );
    else if (phrase.includes('+')) problems.push(`line ${i + 1}: a "+" (Google's OR: one phrase per line)`);
    else if (!seen.has(phrase.toLowerCase())) {
      seen.add(phrase.toLowerCase());
      phrases.push(phrase);
    }
  });
  if (phrases.length > MAX_PHRASES) problems.push(`${phrases.length} phrases: at most ${MAX_PHRASES} in one collection`);
  return { phrases, problems };
}

export interface CollectOptions {
  gateway: TrendsGateway;
  provider: string;
  geo: string;
  /** When to give up waiting for Google (epoch ms). */
  deadline: number;
  /** How long to sleep when the gateway says Google is not answering yet. */
  sleepMs: number;
  now?: () => Date;
  sleep?: (ms: number) => Promise<void>;
}

/** Asks until answered, sleeping through Google's waits; a request that failed for good is returned as its reason. */
async function ask(request: TrendsRequest, options: CollectOptions): Promise<TrendsResponse | { failed: string }> {
  const sleep = options.sleep ?? ((ms: number) => new Promise((r) => setTimeout(r, ms)));
  for (;;) {
    try {
      return await options.gateway.fetch(request);
    } catch (error) {
      if (error instanceof TrendsFailedError) return { failed: error.message };
      if (!(error instanceof WaitingForTrendsError)) throw error;
      const wait = sleepFor(error, options.sleepMs);
      if (Date.now() + wait > options.deadline) throw new Error(`gave up waiting for Google at the deadline: ${error.message}`);
      await sleep(wait);
    }
  }
}

export async function collectEvidence(phrase: string, options: CollectOptions): Promise<CollectedEvidence> {
  const now = options.now ?? (() => new Date());
  const related = await ask({ kind: 'relatedQueries', keyword: phrase, timeframe: '12m', geo: options.geo }, options);
  const request = modifierRequest(phrase);
  const base = { phrase, geo: options.geo, collected_at: now().toISOString(), provider: options.provider };
  const relatedOut: CollectedEvidence['related_queries'] =
    'failed' in related
      ? { served: 'failed', reason: related.failed, top: [], rising: [] }
      : related.kind !== 'relatedQueries'
        ? { served: 'failed', reason: `expected related queries, got ${related.kind}`, top: [], rising: [] }
        : {
            served: related.outcome === 'empty' || related.outcome === 'no_data' ? 'empty' : 'listed',
            top: related.top.map((i) => ({ label: i.label, value: i.value })),
            rising: related.rising.map((i) => ({ label: i.label, value: i.value })),
            provenance: related.provenance ?? null,
          };
  if (!request)
    return {
      ...base,
      related_queries: relatedOut,
      modifier_comparison: { outcome: 'not_asked', reason: 'the phrase leaves no room for a modifier', keywords: [phrase], points: [] },
    };
  const answer = await ask({ kind: 'explore', keywords: request.keywords, timeframe: '12m', geo: options.geo, parts: ['series'] }, options);
  const series = 'failed' in answer || answer.kind !== 'explore' ? undefined : answer.series;
  return {
    ...base,
    related_queries: relatedOut,
    modifier_comparison: series
      ? {
          outcome: series.outcome === 'no_data' ? 'no_data' : 'served',
          keywords: request.keywords,
          points: series.points,
          provenance: (answer as TrendsResponse).provenance ?? (series as TrendsResponse).provenance ?? null,
        }
      : {
          outcome: 'failed',
          reason: 'failed' in answer ? answer.failed : 'the explore answer had no series',
          keywords: request.keywords,
          points: [],
        },
  };
}
