// The idea as typed by ops, made comparable: same idea, same key.
import { controlCharacterProblem } from '../text.js';

export const MAX_IDEA_LENGTH = 500;

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
