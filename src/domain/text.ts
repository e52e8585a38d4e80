// Text that enters from outside (an operator's idea, a discovered trend, a
// webhook keyword) ends up in terminals, SVG and JSON. Control characters
// (C0 and C1, DEL) and bidirectional overrides ("Trojan source") have no place
// in any of it: they are refused where text enters, and escaped wherever text
// is rendered, in case something older slipped through.

// C0 except tab and newline; DEL; C1; bidi embeddings, overrides and isolates.
// A carriage return is refused too: on a terminal it returns to the start of
// the line, so what follows it overwrites what came before.
const FORBIDDEN = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/u;
const FORBIDDEN_ALL = new RegExp(FORBIDDEN.source, 'gu');
// With the u flag, the surrogate range matches only surrogates that are not part of a pair.
const LONE_SURROGATE = /[\ud800-\udfff]/u;

const codePoint = (c: string) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

/** Why `text` cannot be accepted (naming the first bad character and where), or null. */
export function controlCharacterProblem(text: string): string | null {
  // Half of a UTF-16 pair, alone: no character at all, and JSON (Postgres' jsonb) refuses it (a 500 before).
  const lone = LONE_SURROGATE.exec(text);
  if (lone)
    return `contains half of a character (an unpaired UTF-16 surrogate, ${codePoint(lone[0])}) at position ${lone.index + 1}; remove it`;
  const match = FORBIDDEN.exec(text);
  if (!match) return null;
  return `contains the control character ${codePoint(match[0])} at position ${match.index + 1}; remove it (only letters, digits, punctuation, spaces, tabs and newlines are allowed)`;
}

/** For a terminal: every control character shown as a visible escape (\u{1b}), never interpreted. */
export function escapeForTerminal(text: string): string {
  return text.replace(FORBIDDEN_ALL, (c) => `\\u{${c.codePointAt(0)!.toString(16)}}`);
}

// XML 1.0 forbids these even as character references (with the u flag, the
// surrogate range matches only unpaired surrogates).
const NOT_XML = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff\ud800-\udfff]/gu;

/** For XML and SVG: markup characters escaped, characters XML cannot carry replaced by U+FFFD. */
export function escapeXml(text: string): string {
  return text
    .replace(NOT_XML, '\ufffd')
    .replace(FORBIDDEN_ALL, '\ufffd')
    .replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}
