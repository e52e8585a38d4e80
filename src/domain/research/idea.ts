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
// Letters and symbols that are drawn as a blank as wide as a letter (Hangul filler U+3164 and its half-width
// U+FFA0, braille blank U+2800): a space, as a reader sees them, so "Dog walking\u3164marketplace" stays three words.
const BLANK = /[\u2800\u3164\uffa0]/g;
// Variation selectors choose how the character before them is drawn (⚠ U+26A0 then U+FE0F: the emoji ⚠️).
const SELECTOR = '\\uFE00-\\uFE0F\\u180B-\\u180D\\u180F\\u{E0100}-\\u{E01EF}';
// What Unicode says to draw as nothing when it is not understood (Default_Ignorable_Code_Point) and is not a
// control, a format character or a selector: the Hangul choseong and jungseong fillers U+115F and U+1160, the
// combining grapheme joiner U+034F, Khmer's inherent vowels U+17B4-U+17B5 (an outside review, 2026-11-28, had
// the fillers, CGJ and a bare U+FE0F kept in titles).
const IGNORABLE = new RegExp(`(?![${SELECTOR}])\\p{Default_Ignorable_Code_Point}`, 'gu');
// A selector with nothing it could vary before it: an emoji selector after what is not an emoji (or a keycap
// digit, # or *), another after what is not a letter, digit, symbol or punctuation (a space, the start, a selector).
const BARE_EMOJI_SELECTOR = /(?<!\p{Emoji})[\uFE0E\uFE0F]/gu;
const BARE_SELECTOR = /(?<![\p{L}\p{N}\p{S}\p{P}])[\uFE00-\uFE0D\u180B-\u180D\u180F\u{E0100}-\u{E01EF}]/gu;

/**
 * The idea as typed, less what no one can see: controls, bidi, zero-width and other default-ignorable
 * characters removed, and variation selectors that follow nothing they could vary (tabs, line breaks and
 * letter-wide blanks become spaces). What is left (letters, digits, punctuation, symbols, emoji with their
 * selectors) is kept as it was typed.
 */
export function stripInvisible(idea: string): string {
  return idea
    .replace(CONTROL_SPACE, ' ')
    .replace(BLANK, ' ')
    .replace(INVISIBLE, '')
    .replace(IGNORABLE, '')
    .replace(BARE_EMOJI_SELECTOR, '')
    .replace(BARE_SELECTOR, '');
}
