import { describe, expect, it } from 'vitest';
import {
  COUNTED_FAMILIES,
  COUNTED_FAMILY_OF,
  emptyFamilyCounts,
  ENDPOINT_FAMILIES,
  EXCHANGE_KINDS,
  pacedFamilyOf,
  perUnit,
} from '../../src/providers/google/families.js';

describe('Google endpoint families', () => {
  it('gives every kind of exchange the client makes a counted and a paced family', () => {
    for (const kind of EXCHANGE_KINDS) {
      expect(COUNTED_FAMILIES).toContain(COUNTED_FAMILY_OF[kind]);
      expect(ENDPOINT_FAMILIES).toContain(pacedFamilyOf(kind));
    }
    expect(COUNTED_FAMILY_OF.explore).toBe('explore');
    expect(COUNTED_FAMILY_OF.embed_page).toBe('embed');
    // The embed flow's data request is the widgetdata endpoint with an embed token.
    expect(COUNTED_FAMILY_OF.embed_relatedsearches).toBe('widgetdata');
    expect(COUNTED_FAMILY_OF.comparedgeo).toBe('widgetdata');
    expect(COUNTED_FAMILY_OF.trending_rpc).toBe('trending');
  });

  it('counts the cookie pages apart but paces them with explore, as Google blocks them together', () => {
    expect(COUNTED_FAMILY_OF.home_page).toBe('page');
    expect(COUNTED_FAMILY_OF.cookie_page).toBe('page');
    expect(pacedFamilyOf('home_page')).toBe('explore');
    expect(pacedFamilyOf('cookie_page')).toBe('explore');
    // Every other kind is paced under the family it is counted in.
    for (const kind of EXCHANGE_KINDS) if (COUNTED_FAMILY_OF[kind] !== 'page') expect(pacedFamilyOf(kind)).toBe(COUNTED_FAMILY_OF[kind]);
  });

  it('divides counts per unit, with their total', () => {
    const counts = { ...emptyFamilyCounts(), explore: 12, widgetdata: 20, embed: 4 };
    expect(perUnit(counts, 4)).toEqual({ explore: 3, widgetdata: 5, autocomplete: 0, embed: 1, trending: 0, page: 0, total: 9 });
  });
});
