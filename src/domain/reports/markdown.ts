// Text from outside (an idea, a title, a step's summary) written into Markdown
// as text and nothing else: no link, image, autolink, HTML, emphasis, table
// cell break or block of its own. CommonMark lets any ASCII punctuation be
// escaped with a backslash, which renders as the character itself; the ones
// that start markup are escaped everywhere, and the few that only do so in
// one place (a list marker at the start, the dot of "www.", the colon of
// "https:") there. GFM's autolinks (www., http://, a@b.c) are recognised in
// text nodes after escapes are read, and an escape splits the node, so an
// escaped "www\." or "https\://" or "a\@b" links nothing. Control characters
// and bidirectional overrides become U+FFFD, as in escapeXml.
const ALWAYS = /[\\`*{}[\]<>#!|~&@$]/g;
// Between two letters or digits an underscore cannot open or close emphasis: only the others are escaped.
const BOUNDARY_UNDERSCORE = /(?<![\p{L}\p{N}])_|_(?![\p{L}\p{N}])/gu;
const NOT_TEXT = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\ufffe\uffff\ud800-\udfff]/gu;

/** Inline text: one line (newlines become spaces, so it cannot start a block), every markup character escaped. */
export function escapeMarkdown(text: string): string {
  let out = text
    .replace(NOT_TEXT, '\ufffd')
    .replace(/\s*[\r\n]+\s*|\t/g, ' ')
    .trim();
  out = out.replace(ALWAYS, '\\$&').replace(BOUNDARY_UNDERSCORE, '\\_');
  out = out.replace(/(www)\./gi, '$1\\.').replace(/:(?=\/)/g, '\\:');
  // Only at the start (of a list item's text, say) do these begin a block: a bullet, a rule (---), a numbered list.
  out = out.replace(/^([-+=])(?=[\s\-=]|$)/, '\\$1').replace(/^(\d{1,9})([.)])(?=\s|$)/, '$1\\$2');
  return out;
}

/** A GFM table; cells are written as given (escape text cells first). */
export function markdownTable(header: readonly string[], rows: ReadonlyArray<readonly string[]>, align?: ReadonlyArray<'l' | 'r'>): string {
  const rule = header.map((_, i) => (align?.[i] === 'r' ? '---:' : '---'));
  return [header, rule, ...rows].map((cells) => `| ${cells.map((c) => (c === '' ? ' ' : c)).join(' | ')} |`).join('\n');
}
