// The places the loopback providers of paid and official APIs (DataForSEO, the Trends API) draw on their maps:
// ten countries worldwide, and a country's regions as ISO 3166-2 codes. One list, so the two loopbacks answer
// a region map of the same world. (The loopback Google keeps its own, larger world: google-on-loopback/world.ts.)
export type LoopbackPlace = readonly [code: string, name: string];

export const LOOPBACK_COUNTRIES: readonly LoopbackPlace[] = [
  ['US', 'United States'],
  ['GB', 'United Kingdom'],
  ['CA', 'Canada'],
  ['AU', 'Australia'],
  ['IN', 'India'],
  ['DE', 'Germany'],
  ['NG', 'Nigeria'],
  ['PH', 'Philippines'],
  ['IE', 'Ireland'],
  ['NZ', 'New Zealand'],
];

export const LOOPBACK_REGIONS: Readonly<Record<string, readonly LoopbackPlace[]>> = {
  US: [
    ['US-CA', 'California'],
    ['US-NY', 'New York'],
    ['US-TX', 'Texas'],
    ['US-FL', 'Florida'],
    ['US-WA', 'Washington'],
  ],
  GB: [
    ['GB-ENG', 'England'],
    ['GB-SCT', 'Scotland'],
    ['GB-WLS', 'Wales'],
    ['GB-NIR', 'Northern Ireland'],
  ],
};
