// The places the simulated world draws on its maps, as Google names them:
// countries worldwide (ISO 3166-1), a country's regions (ISO 3166-2
// subdivision codes, as Google's geoCode gives them: US-CA, GB-SCT) and its
// largest cities (named only: Google gives cities no code). A market the table
// does not hold has no regions here, as Google answers a region it has no data
// for; docs/research.md (Trends providers) says which markets it draws.
export type Place = readonly [code: string, name: string];

export const SYNTHETIC_COUNTRIES: readonly Place[] = [
  ['US', 'United States'],
  ['GB', 'United Kingdom'],
  ['IN', 'India'],
  ['CA', 'Canada'],
  ['AU', 'Australia'],
  ['DE', 'Germany'],
  ['FR', 'France'],
  ['BR', 'Brazil'],
  ['NG', 'Nigeria'],
  ['JP', 'Japan'],
];

/** The largest city of each country above, in the same order: a worldwide city map. */
export const SYNTHETIC_WORLD_CITIES: readonly string[] = [
  'New York',
  'London',
  'Mumbai',
  'Toronto',
  'Sydney',
  'Berlin',
  'Paris',
  'São Paulo',
  'Lagos',
  'Tokyo',
];

const table = (text: string): Place[] =>
  text
    .trim()
    .split('\n')
    .map((line) => {
      const [code, name] = line.trim().split(/\s(.+)/);
      return [code!, name!] as const;
    });

/** ISO 3166-2 subdivisions Google Trends lists for a country's regions. */
export const SYNTHETIC_REGIONS: Readonly<Record<string, readonly Place[]>> = {
  US: table(`
    US-AL Alabama
    US-AK Alaska
    US-AZ Arizona
    US-AR Arkansas
    US-CA California
    US-CO Colorado
    US-CT Connecticut
    US-DE Delaware
    US-DC District of Columbia
    US-FL Florida
    US-GA Georgia
    US-HI Hawaii
    US-ID Idaho
    US-IL Illinois
    US-IN Indiana
    US-IA Iowa
    US-KS Kansas
    US-KY Kentucky
    US-LA Louisiana
    US-ME Maine
    US-MD Maryland
    US-MA Massachusetts
    US-MI Michigan
    US-MN Minnesota
    US-MS Mississippi
    US-MO Missouri
    US-MT Montana
    US-NE Nebraska
    US-NV Nevada
    US-NH New Hampshire
    US-NJ New Jersey
    US-NM New Mexico
    US-NY New York
    US-NC North Carolina
    US-ND North Dakota
    US-OH Ohio
    US-OK Oklahoma
    US-OR Oregon
    US-PA Pennsylvania
    US-RI Rhode Island
    US-SC South Carolina
    US-SD South Dakota
    US-TN Tennessee
    US-TX Texas
    US-UT Utah
    US-VT Vermont
    US-VA Virginia
    US-WA Washington
    US-WV West Virginia
    US-WI Wisconsin
    US-WY Wyoming`),
  GB: table(`
    GB-ENG England
    GB-SCT Scotland
    GB-WLS Wales
    GB-NIR Northern Ireland`),
  CA: table(`
    CA-AB Alberta
    CA-BC British Columbia
    CA-MB Manitoba
    CA-NB New Brunswick
    CA-NL Newfoundland and Labrador
    CA-NS Nova Scotia
    CA-ON Ontario
    CA-PE Prince Edward Island
    CA-QC Quebec
    CA-SK Saskatchewan`),
  AU: table(`
    AU-ACT Australian Capital Territory
    AU-NSW New South Wales
    AU-NT Northern Territory
    AU-QLD Queensland
    AU-SA South Australia
    AU-TAS Tasmania
    AU-VIC Victoria
    AU-WA Western Australia`),
  DE: table(`
    DE-BW Baden-Württemberg
    DE-BY Bavaria
    DE-BE Berlin
    DE-BB Brandenburg
    DE-HB Bremen
    DE-HH Hamburg
    DE-HE Hesse
    DE-NI Lower Saxony
    DE-MV Mecklenburg-Vorpommern
    DE-NW North Rhine-Westphalia
    DE-RP Rhineland-Palatinate
    DE-SL Saarland
    DE-SN Saxony
    DE-ST Saxony-Anhalt
    DE-SH Schleswig-Holstein
    DE-TH Thuringia`),
};

/** A country's largest cities, as Google's city map names them. */
export const SYNTHETIC_CITIES: Readonly<Record<string, readonly string[]>> = {
  US: ['New York', 'Los Angeles', 'Chicago', 'Houston', 'Phoenix', 'Philadelphia', 'San Antonio', 'San Diego', 'Dallas', 'Austin'],
  GB: ['London', 'Birmingham', 'Manchester', 'Glasgow', 'Leeds', 'Liverpool', 'Edinburgh', 'Bristol', 'Cardiff', 'Belfast'],
  CA: ['Toronto', 'Montreal', 'Vancouver', 'Calgary', 'Edmonton', 'Ottawa', 'Winnipeg', 'Quebec City', 'Hamilton', 'Halifax'],
  AU: ['Sydney', 'Melbourne', 'Brisbane', 'Perth', 'Adelaide', 'Gold Coast', 'Canberra', 'Newcastle', 'Hobart', 'Darwin'],
  DE: ['Berlin', 'Hamburg', 'Munich', 'Cologne', 'Frankfurt', 'Stuttgart', 'Düsseldorf', 'Leipzig', 'Dortmund', 'Essen'],
};
