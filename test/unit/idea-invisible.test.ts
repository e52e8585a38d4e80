// A title keeps what was typed, less what no one sees (issue 48): control,
// bidi and zero-width characters (Unicode Cc and Cf) are removed, and since the
// second review other default-ignorable ones (Hangul fillers, CGJ) and variation
// selectors with no base; letter-wide blanks become spaces; letters, punctuation,
// symbols and emoji (with their variation selectors) stay.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { normalizeIdea, stripInvisible } from '../../src/domain/research/idea.js';

const INVISIBLE = [
  ...['\u0000', '\u0007', '\u001b', '\u007f', '\u0085', '\u009b'], // C0, DEL, C1
  ...['\u00ad', '\u061c', '\u180e'], // soft hyphen, Arabic letter mark, Mongolian vowel separator
  ...['\u200b', '\u200c', '\u200d', '\u200e', '\u200f'], // zero-width space, non-joiner, joiner, LRM, RLM
  ...['\u202a', '\u202b', '\u202c', '\u202d', '\u202e'], // bidi embeddings and overrides
  ...['\u2060', '\u2061', '\u2064', '\u2066', '\u2067', '\u2068', '\u2069'], // word joiner, invisible operators, isolates
  ...['\ufeff', '\u{e0001}', '\u{e0041}'], // BOM, tag characters
];

describe('stripInvisible', () => {
  it('removes every control, bidi and zero-width character the review named, and keeps the rest as typed', () => {
    const shouted = `DOG-WALKING MARKETPLACE?!! ${INVISIBLE.join('')}… ⚠️☠☠☠⚠️ «» (simulated demo)`;
    // (U+0085, a line break, becomes a space; the idea's normalisation folds the two.)
    expect(normalizeIdea(stripInvisible(shouted)).text).toBe('DOG-WALKING MARKETPLACE?!! … ⚠️☠☠☠⚠️ «» (simulated demo)');
    expect(stripInvisible('Çafé ☕ für Hunde — 24/7')).toBe('Çafé ☕ für Hunde — 24/7');
  });

  // The second review (2026-11-28) had these kept: "Dog walking\u3164marketplace\u115F" became an insight's title.
  it('removes Hangul fillers, CGJ and bare variation selectors, and turns letter-wide blanks into spaces; emoji keep their selectors', () => {
    expect(stripInvisible('Dog walking\u3164marketplace\u115F')).toBe('Dog walking marketplace');
    expect(stripInvisible('a\u1160b\uffa0c\u2800d\u034fe\u17b4f')).toBe('ab c def');
    expect(normalizeIdea(stripInvisible('\ufe0fdog \ufe0f walking\ufe0f')).text).toBe('dog walking');
    expect(stripInvisible('⚠\ufe0f\ufe0f')).toBe('⚠\ufe0f');
    expect(stripInvisible('⚠️☠☠☠⚠️ 1️⃣ ☕︎ 葛\u{e0100}')).toBe('⚠️☠☠☠⚠️ 1️⃣ ☕︎ 葛\u{e0100}');
  });

  it('turns tabs and line breaks into spaces, so words stay apart', () => {
    expect(normalizeIdea(stripInvisible('dog\twalking\r\nmarket\u0085place')).text).toBe('dog walking market place');
  });

  it('leaves no control, format, default-ignorable or blank character in any string but selectors after a base, and changes none that has none (property test)', () => {
    const selector = /[\ufe00-\ufe0f\u180b-\u180d\u180f\u{e0100}-\u{e01ef}]/u;
    const invisible = /[\p{Cc}\p{Cf}\p{Default_Ignorable_Code_Point}\u2800]/u;
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        const out = stripInvisible(s);
        expect([...out].filter((c) => invisible.test(c) && !selector.test(c))).toEqual([]);
        expect(out).not.toMatch(/^[\ufe00-\ufe0f]|\s[\ufe00-\ufe0f]/u);
        if (!invisible.test(s)) expect(out).toBe(s);
      }),
      { numRuns: 200 },
    );
  });
});
