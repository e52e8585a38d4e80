// Text from outside is refused when it holds control characters. A carriage
// return used to pass: on a terminal it moves back to the start of the line, so
// what follows overwrites what an operator reads ("safe idea\rrm -rf ...").
import { describe, expect, it } from 'vitest';
import { controlCharacterProblem, escapeForTerminal } from '../../src/domain/text.js';

describe('the control-character rule', () => {
  it.each([
    ['a carriage return', 'safe idea\rsomething else', 'U+000D'],
    ['CRLF', 'line one\r\nline two', 'U+000D'],
    ['NUL', 'a\u0000b', 'U+0000'],
    ['ESC', 'x\u001b[2J', 'U+001B'],
    ['DEL', 'x\u007f', 'U+007F'],
    ['a C1 control', 'x\u0085', 'U+0085'],
    ['a bidi override', 'x\u202ey', 'U+202E'],
  ])('refuses %s', (_, text, codePoint) => {
    expect(controlCharacterProblem(text)).toContain(codePoint);
    expect(escapeForTerminal(text)).not.toMatch(/[\r\u0000\u001b\u007f\u0085\u202e]/);
  });

  it('lets tabs, newlines and ordinary text through', () => {
    for (const text of ['AI meal planner', 'two\nlines', 'tab\tseparated', 'Café – naïve “quotes”', '日本語のアイデア']) {
      expect(controlCharacterProblem(text)).toBeNull();
    }
  });
});
