// Markup that escapes by construction (issue 50; the model is atproto's oauth-provider lib/html). A page is built
// with the `html` tag: every value put into it is escaped unless it is already `Html`, so text from outside (an
// idea, an account's name, a webhook URL) can only ever become text. Markup that did not come from the tag enters
// only through `unsafeRawHtml`, whose callers each say why it is safe. It lives in the domain so that both the
// account pages (src/http/pages) and the printable report (src/domain/reports) build with it.
import { escapeXml } from './text.js';

/** What an interpolation may be: markup, text (escaped), a number, nothing (null, undefined, false), or a list of these (joined). */
export type HtmlValue = Html | string | number | null | undefined | false | readonly HtmlValue[];

let make: (markup: string) => Html;

/** A piece of markup that is safe as it is: made by `html`, `joinHtml` or `unsafeRawHtml`, and by nothing else. */
export class Html {
  readonly #markup: string;
  private constructor(markup: string) {
    this.#markup = markup;
  }
  static {
    make = (markup) => new Html(markup);
  }
  toString(): string {
    return this.#markup;
  }
}

function render(value: HtmlValue): string {
  if (value instanceof Html) return value.toString();
  if (value === null || value === undefined || value === false) return '';
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return escapeXml(value);
  return value.map(render).join('');
}

// A value after `name=` with no quote would end at the first space, and escaping cannot stop that (`x onmouseover=…`
// needs no quote or bracket): such a template is refused the first time it is used, so every attribute is quoted.
const UNQUOTED_ATTRIBUTE = /[\w-]=\s*$/;
const checked = new WeakSet<TemplateStringsArray>();
function checkTemplate(strings: TemplateStringsArray): void {
  if (checked.has(strings)) return;
  for (let i = 0; i < strings.length - 1; i++) {
    if (UNQUOTED_ATTRIBUTE.test(strings[i]!))
      throw new Error(`html template: value ${i + 1} is an unquoted attribute value (after "${strings[i]!.slice(-40)}"); quote it`);
  }
  checked.add(strings);
}

/** The tag: html`<p class="x">${text}</p>`. Text is escaped (both quotes too, so it is safe in a quoted attribute). */
export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): Html {
  checkTemplate(strings);
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]!) + strings[i + 1]!;
  return make(out);
}

/** Several values as one, with `separator` (text or markup) between them. */
export function joinHtml(values: readonly HtmlValue[], separator: HtmlValue = ''): Html {
  const sep = render(separator);
  return make(values.map(render).join(sep));
}

/** Text as markup, escaped (for a value that is kept as Html before it is put into a template). */
export const htmlText = (text: string | number): Html => make(render(text));

/**
 * Markup taken as it is, never escaped. The one door for markup the tag did not make (a constant stylesheet, a page's
 * part kept sealed between two requests; the charts are built with the tag): every caller says in a comment why what
 * it passes cannot hold markup from outside.
 */
export function unsafeRawHtml(markup: string): Html {
  return make(markup);
}

/** The one frame of every HTML document this service serves: the account pages and the printable report. */
export interface HtmlDocument {
  /** The document's <title>, as text. */
  title: string;
  /** What the <head> holds beyond its charset, viewport and title (a stylesheet, an icon, a refresh). */
  head: Html;
  body: Html;
}

export function htmlDocument(doc: HtmlDocument): Html {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${doc.title}</title>
${doc.head}</head>
<body>
${doc.body}
</body>
</html>
`;
}
