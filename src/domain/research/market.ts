// Which markets and languages a research run may ask about. A market is a
// country (ISO 3166-1 alpha-2, as Google Trends takes it), a region of one
// (US-CA: the country is checked; Google answers an unknown region with no
// data, which the run then reports), or '' for worldwide. Names come from the
// runtime's own ICU data, so no list is kept here to go stale.
const REGIONS = new Intl.DisplayNames(['en'], { type: 'region' });
const LANGUAGES = new Intl.DisplayNames(['en'], { type: 'language' });
/**
 * Codes ICU names that are no country Google Trends answers for: unions and
 * groupings, pseudo-regions, codes of countries that no longer exist, and
 * exceptionally reserved ones (UK: Google uses GB).
 */
const NOT_COUNTRIES = new Set('EU EZ UN QO ZZ XA XB UK SU DD YU CS BU TP ZR FX AN AC CP DG EA IC TA'.split(' '));

export const MARKET_SHAPE = /^(?:[A-Z]{2}(?:-[A-Z0-9]{1,3})?)?$/;

/** The country's English name, or undefined when the code is no country. */
export function countryName(code: string): string | undefined {
  if (!/^[A-Z]{2}$/.test(code) || NOT_COUNTRIES.has(code)) return undefined;
  const name = REGIONS.of(code);
  return name && name !== code && name !== 'Unknown Region' ? name : undefined;
}

/** Why a market cannot be asked about, or null when it can ('' is worldwide). */
export function marketProblem(geo: string): string | null {
  if (!MARKET_SHAPE.test(geo)) {
    return `"${geo.slice(0, 12)}" is not a market: use a country code such as US, a region such as US-CA, or "" for worldwide`;
  }
  if (geo === '') return null;
  const country = geo.slice(0, 2);
  if (countryName(country)) return null;
  const meant = COMMON_MISTAKES[country];
  if (meant) {
    return `"${country}" is not a country code: use ${meant.code}${geo.slice(2)} for ${meant.name} (ISO 3166-1; ${meant.why})`;
  }
  return `"${country}" is not a country code (ISO 3166-1, such as US, DE or BR)`;
}

/** Codes people type for a country that ISO 3166-1 (and Google Trends) spell otherwise: refused, with the right one. */
const COMMON_MISTAKES: Readonly<Record<string, { code: string; name: string; why: string }>> = {
  UK: { code: 'GB', name: 'the United Kingdom', why: 'UK is only reserved for it, as in the .uk domain' },
  EL: { code: 'GR', name: 'Greece', why: "EL is the EU's own code for it" },
};

/** Why a language tag is not one, or null: a known ISO 639-1 language, optionally with a country (pt-BR). */
export function languageProblem(tag: string): string | null {
  const match = /^([a-z]{2})(?:-([A-Z]{2}))?$/.exec(tag);
  if (!match) return `"${tag.slice(0, 10)}" is not a language tag such as en, de or pt-BR`;
  const name = LANGUAGES.of(match[1]!);
  if (!name || name === match[1]) return `"${match[1]}" is not a known language code (ISO 639-1, such as en, de or pt)`;
  if (match[2] && !countryName(match[2])) return `"${match[2]}" in "${tag}" is not a country code`;
  return null;
}
