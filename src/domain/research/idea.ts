// The idea as typed by ops, made comparable: same idea, same key.
import { controlCharacterProblem } from '../text.js';

export const MAX_IDEA_LENGTH = 500;

const STOPWORDS = new Set(
  'a an and app apps are as at be by for from get help helps in into is it its my of on or our platform service services startup that the their them this to tool tools using via we which with your you that lets people who'.split(
    ' ',
  ),
);

/** A reason the idea cannot be researched, or null when it can. */
export function validateIdea(idea: string): string | null {
  const text = idea.trim();
  if (text === '') return 'the idea is empty: describe it in a few words, e.g. "AI meal planner for diabetics"';
  if (text.length > MAX_IDEA_LENGTH) return `the idea is ${text.length} characters long; keep it under ${MAX_IDEA_LENGTH}`;
  if (!/[\p{L}\p{N}]/u.test(text)) return 'the idea has no letters or digits';
  const control = controlCharacterProblem(text);
  if (control) return `the idea ${control}`;
  return null;
}

export function normalizeIdea(idea: string): { text: string; key: string; words: string[] } {
  const text = idea.trim().replace(/\s+/g, ' ');
  const words = text
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
  return { text, key: words.join(' '), words };
}

/**
 * Candidate search phrases: operator hints first, then the content words of
 * the idea as 2- and 1-word phrases (people search in short phrases).
 */
export function extractPhrases(words: readonly string[], hints: readonly string[], max = 5): string[] {
  const content = words.filter((w) => !STOPWORDS.has(w) && w.length > 1);
  const phrases: string[] = [];
  const add = (p: string) => {
    const clean = p.trim().toLowerCase();
    if (clean && !phrases.includes(clean)) phrases.push(clean);
  };
  hints.forEach(add);
  for (let i = 0; i + 1 < content.length; i += 1) add(`${content[i]} ${content[i + 1]}`);
  content.forEach(add);
  return phrases.slice(0, max);
}
