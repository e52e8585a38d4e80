// RFC 6901 JSON Pointers: what a sentence of an insight's decision cites as its
// evidence ("/dimensions/demand/evidence/monthly_searches"), and the anchor a
// report gives the place it points to, so that the sentence links there.

/** The pointer's reference tokens, ~1 and ~0 read back; null when it is not a pointer. */
export function pointerTokens(pointer: string): string[] | null {
  if (pointer === '') return [];
  if (!pointer.startsWith('/') || /~[^01]|~$/.test(pointer)) return null;
  return pointer
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

export function pointerOf(tokens: readonly string[]): string {
  return tokens.map((t) => `/${t.replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

/** What the pointer names in `root`; undefined when it names nothing. */
export function resolvePointer(root: unknown, pointer: string): unknown {
  const tokens = pointerTokens(pointer);
  if (tokens === null) return undefined;
  let here: unknown = root;
  for (const token of tokens) {
    if (Array.isArray(here)) {
      if (!/^(0|[1-9]\d*)$/.test(token)) return undefined;
      here = here[Number(token)];
    } else if (here !== null && typeof here === 'object' && Object.hasOwn(here, token)) {
      here = (here as Record<string, unknown>)[token];
    } else {
      return undefined;
    }
  }
  return here;
}

/**
 * The element id a report gives the place a pointer names: "ev" and the
 * tokens, joined by "/", letters, digits, "_" and "-" kept and every other
 * character written ".hex." (so two pointers never share an id, and no id
 * holds a character that would need escaping in HTML or in a URL's fragment).
 */
export function anchorId(tokens: readonly string[]): string {
  return ['ev', ...tokens.map((t) => t.replace(/[^A-Za-z0-9_-]/gu, (c) => `.${c.codePointAt(0)!.toString(16)}.`))].join('/');
}
