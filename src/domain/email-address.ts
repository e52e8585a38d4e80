// An address a person is invited at and signs in with. It must be the address its reader sees: two addresses
// that look alike (a full-width "ａ", a zero-width space, a Cyrillic "а") would let an owner hold a look-alike
// of someone's address, so anything but plain ASCII is refused with the reason, never silently folded.
// SMTPUTF8 (non-ASCII local parts) is not supported; an international domain is written in its xn-- form.

/** Format characters (zero-width space and joiners, word joiner, BOM, bidi marks), controls, separators but the space. */
const INVISIBLE = /[\p{Cf}\p{Cc}\p{Zl}\p{Zp}]/u;
/** Local part: RFC 5321 dot-atom characters; domain: dot-separated LDH labels. */
const LOCAL = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
const DOMAIN = /^([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)*[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;

const codePoint = (c: string) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

export type EmailCheck = { ok: true; email: string } | { ok: false; problem: string };

/** The address as stored (trimmed of spaces, lower case), or why it is refused (a sentence a person can act on). */
export function checkEmailAddress(raw: string): EmailCheck {
  const input = raw.replace(/^ +| +$/g, '');
  const invisible = INVISIBLE.exec(input);
  if (invisible) {
    return {
      ok: false,
      problem: `The address holds an invisible or control character (${codePoint(invisible[0])} at position ${invisible.index + 1}): type it again without it.`,
    };
  }
  const nfkc = input.normalize('NFKC');
  if (nfkc !== input) {
    const at = [...input].findIndex((c) => c.normalize('NFKC') !== c);
    const c = [...input][at] ?? '';
    return {
      ok: false,
      problem: `The address holds a character that stands for another (${codePoint(c)} "${c}" is "${c.normalize('NFKC')}"; full-width and compatibility forms are refused): type it again in plain characters.`,
    };
  }
  const nonAscii = /[^\x20-\x7e]/u.exec(input);
  if (nonAscii) {
    return {
      ok: false,
      problem: `The address holds a character outside ASCII (${codePoint(nonAscii[0])} "${nonAscii[0]}"): only ASCII addresses are accepted (write an international domain in its xn-- form).`,
    };
  }
  const email = input.toLowerCase();
  const at = email.lastIndexOf('@');
  const local = email.slice(0, at);
  const domain = email.slice(at + 1);
  if (at < 1 || local.length > 64 || domain.length > 190 || !LOCAL.test(local) || !DOMAIN.test(domain)) {
    return { ok: false, problem: 'Give an email address such as ada@example.com.' };
  }
  return { ok: true, email };
}
