import { describe, expect, it } from 'vitest';
import { EXCHANGE_KINDS } from '../../src/providers/google/exchange.js';
import {
  emptyFamilyCounts,
  FAMILY_OF_EXCHANGE,
  familyOfExchange,
  GOOGLE_FAMILIES,
  perUnit,
} from '../../src/domain/trends/google-families.js';

describe('Google endpoint families', () => {
  it('gives every kind of exchange the client makes a family', () => {
    for (const kind of EXCHANGE_KINDS) expect(GOOGLE_FAMILIES).toContain(FAMILY_OF_EXCHANGE[kind]);
    expect(familyOfExchange('explore')).toBe('explore');
    expect(familyOfExchange('embed_page')).toBe('embed');
    // The embed flow's data request is the widgetdata endpoint with an embed token.
    expect(familyOfExchange('embed_relatedsearches')).toBe('widgetdata');
    expect(familyOfExchange('comparedgeo')).toBe('widgetdata');
    expect(familyOfExchange('trending_rpc')).toBe('trending');
  });

  it('divides counts per unit, with their total', () => {
    const counts = { ...emptyFamilyCounts(), explore: 12, widgetdata: 20, embed: 4 };
    expect(perUnit(counts, 4)).toEqual({ explore: 3, widgetdata: 5, autocomplete: 0, embed: 1, trending: 0, page: 0, total: 9 });
  });
});
