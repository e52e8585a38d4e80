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

// Control (Cc) and format (Cf) characters: C0 and C1 controls, DEL, soft hyphen, the zero-width space,
// joiners and marks (U+200B-U+200F), bidi embeddings, overrides and isolates (U+202A-U+202E,
// U+2066-U+2069), word joiner, invisible operators, the byte-order mark (U+FEFF), tag characters.
// Nothing a reader sees, so a title made of them can look like another's, or reorder what is shown after it.
const INVISIBLE = /[\p{Cc}\p{Cf}]/gu;
// Whitespace among the controls separates words: it becomes a space, so "dog\twalking" stays two words.
const CONTROL_SPACE = /[\t\n\v\f\r\u0085]/g;

/**
 * The idea as typed, less what no one can see: controls, bidi and zero-width
 * characters removed (tabs and line breaks become spaces). What is left
 * (letters, digits, punctuation, symbols, emoji) is kept as it was typed.
 */
export function stripInvisible(idea: string): string {
  return idea.replace(CONTROL_SPACE, ' ').replace(INVISIBLE, '');
}
