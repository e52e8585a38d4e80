// An idea's category in Google's top-level tree (CATEGORIES), from what the
// research measured: Google's topic types and the related searches weigh more
// than the idea's own words. A weighted lexicon, so every decision can be read
// back as the terms that made it. How it was built and how often it is right:
// docs/categories.md.
import { CATEGORIES, type Category } from '../catalog.js';

/** What research measured about an idea, as the classifier reads it. */
export interface CategoryEvidence {
  /** The idea as typed (or a demo topic's name). */
  idea: string;
  /** The search phrases taken from the idea (step 2). */
  phrases: readonly string[];
  /** Autocomplete topics (step 3); `type` is Google's topic type ("Food", "Dog breed", "Software"). */
  topics: ReadonlyArray<{ title: string; type: string }>;
  /** Related queries, top and rising (steps 13-14). */
  relatedQueries?: readonly string[];
  /** Related topics (steps 15-16), with Google's topic type when it gave one. */
  relatedTopics?: ReadonlyArray<{ label: string; type?: string }>;
  /** Freebase types of the topic ("Dish", "Ingredient"), where the data carries them (the demo's GTAB topics). */
  freebaseTypes?: readonly string[];
}

export interface CategoryChoice {
  category: Category;
  /** Google's category id (the `cat` of a Trends request); null for `uncategorized`. */
  google_id: number | null;
  /**
   * 0–1: the winner's share of all the scored evidence, damped when that
   * evidence is thin (below STRONG_EVIDENCE points: an idea word or two alone).
   */
  confidence: number;
  /** The evidence that decided, strongest first, each as `where:term` (e.g. `topic-type:dish`, `related-query:flights`). */
  matched: string[];
  /** Every category that scored, with its points. */
  scores: Partial<Record<Category, number>>;
}

/**
 * How much one matched term counts, by where it was found. What Google
 * measured (the types it gives a topic, the searches people make around it)
 * outweighs the words the idea's author chose.
 */
export const EVIDENCE_WEIGHTS = {
  idea: 1,
  topic: 1.5,
  'topic-type': 3,
  'related-query': 2,
  'related-topic': 2,
  'related-topic-type': 3,
  freebase: 3,
} as const;
export type EvidenceSource = keyof typeof EVIDENCE_WEIGHTS;

/** A winner holding this many points (one topic type, or a few related searches) is fully confident of its share. */
export const STRONG_EVIDENCE = 6;

/**
 * Per category, the terms that point to it: the subject words of Google's own
 * subcategories (e.g. Food & Drink > Cooking & Recipes, Beverages) and common
 * topic types. `term:w` weighs w (default 1; 2 for unambiguous subjects, 0.5
 * for words that lean but also mean other things). Words that name a
 * product's form or a searcher's intent rather than a subject (app, software,
 * platform, online, price, buy, best, near me) are in no list: every idea has
 * them. Multi-word terms are matched first and use up their words.
 */
const LEXICON: Record<Exclude<Category, 'uncategorized'>, string> = {
  'arts-entertainment':
    'entertainment:2, movie:2, film:2, cinema:2, music:2, song, musician:2, concert:2, music festival:2, band, album, piano:2, guitar:2, violin:2, drum, singer, karaoke, tv show:2, tv series:2, television, netflix, comedy, theater, theatre, celebrity, anime:2, manga:2, comic, cartoon, animation, painting, art, artist, drawing, photography, museum, ticket:0.5, ticketmaster:2, stubhub:2, musical instrument:2, musical artist:2, dj, dance, orchestra, opera, podcast',
  'autos-vehicles':
    'car:2, vehicle:2, auto, automobile:2, motorcycle:2, motorbike:2, suv:2, sedan, tire, tyre, car dealer:2, dealership, used car:2, car wash:2, mechanic, oil change, electric vehicle:2, ev charging:2, charging station, kelley blue book:2, carmax:2, truck:0.5, boat, rv, scooter, automobile make:2, car model:2, harley davidson:2, car value:2',
  'beauty-fitness':
    'beauty:2, fitness:2, workout:2, exercise:2, gym:2, yoga:2, pilates:2, crossfit:2, personal trainer:2, weight loss, bodybuilding:2, skincare:2, skin care:2, makeup:2, cosmetic:2, cosmetics:2, hair, hairstyle:2, salon, nail, spa, perfume:2, fragrance, moisturizer:2, face wash:2, push up:2, bodyweight, cardio, fashion, barber, manicure:2, hot yoga:2',
  'books-literature':
    'book:2, novel:2, author, audiobook:2, ebook:2, kindle, poetry:2, poem, literature:2, reading, book club:2, publishing, self publishing:2, writer, audible:2, goodreads:2, fiction, book summary:2',
  'business-industrial':
    'business:0.5, b2b, marketing:2, advertising:2, seo:2, email marketing:2, newsletter, lead generation:2, sales:0.5, crm, logistics:2, freight:2, shipping:0.5, supply chain:2, warehouse:2, manufacturing:2, factory, wholesale:2, packaging:2, construction, industrial:2, agriculture, farming, energy, solar:2, solar panel:2, solar power:2, renewable, utility, mining, small business:0.5, entrepreneur, consulting, human resources:2, trucking:2, truck driver, load board:2, freight broker:2, mailchimp:2, hubspot, office supplies',
  'computers-electronics':
    'computer:2, laptop:2, pc, programming:2, code:2, coding:2, developer:2, github:2, api, sdk, debug, devops:2, database, cloud computing:2, aws, amazon web services:2, azure:2, server, linux:2, windows, macbook:2, hardware, electronics:2, gadget, ai:0.5, artificial intelligence, machine learning:2, llm, large language model, chatgpt, gpt, copilot, chatbot, neural network, data science, cybersecurity:2, computer security:2, password:2, password manager:2, vpn:2, antivirus:2, encryption, malware:2, backup, 3d printing:2, computer repair:2, it support, programming language:2, operating system:2, code review:2',
  finance:
    'finance:2, financial:2, bank:2, banking:2, loan:2, mortgage, credit, credit card:2, credit score:2, debt, budget, budgeting:2, saving, savings, invest:2, investing:2, investment:2, stock, stock market:2, trading, portfolio:0.5, crypto:2, cryptocurrency:2, bitcoin:2, ethereum:2, coinbase:2, tax:2, tax return:2, irs:2, 1099:2, turbotax:2, accounting:2, accountant:2, bookkeeping:2, quickbooks:2, xero:2, invoice:2, invoicing:2, billing, payment:2, insurance:2, vehicle insurance:2, car insurance:2, pension, money, fintech:2, payroll, currency:2, paypal, venmo, expense, wealth, 401k:2, forex:2, geico:2',
  'food-drink':
    'food:2, meal:2, recipe:2, cooking:2, cook, restaurant:2, chef, dinner, lunch, breakfast, snack, coffee:2, tea, beer:2, craft beer:2, brewery:2, ipa, wine:2, cocktail:2, grocery:2, bakery:2, baking, pizza:2, bagel, vegan, vegetarian, meal prep:2, meal preparation:2, meal kit:2, meal planning:2, meal plan:2, meal planner:2, dish:2, ingredient:2, beverage:2, cuisine:2, sauce, dessert, candy, chocolate, cheese, sommelier:2, food pairing:2, catering, cafe, drink, juice, smoothie, soup, salad, pasta, steak, sushi, burger, bbq',
  games:
    'game:2, gaming:2, video game:2, gamer:2, esports:2, speedrun:2, minecraft:2, fortnite:2, roblox:2, playstation:2, xbox:2, nintendo:2, twitch, board game:2, card game:2, puzzle, chess:2, trivia:2, poker, casino, kahoot:2, catan:2, tabletop',
  health:
    'health:2, medical:2, medicine, doctor:2, clinic:2, hospital:2, patient, symptom:2, disease:2, illness, diagnosis, therapy, therapist, mental health:2, anxiety:2, depression:2, meditation, sleep, insomnia:2, diabetes:2, nutrition, vitamin:2, multivitamin:2, supplement, dietary supplement:2, diet:0.5, pharmacy:2, drug, medication:2, prescription, telehealth:2, telemedicine:2, nurse, dental:2, dentist:2, covid, flu, cancer:2, pregnancy, fertility, webmd:2, medical condition:2, headspace',
  'hobbies-leisure':
    'hobby:2, craft, knitting:2, knitting pattern:2, crochet:2, sewing:2, quilting:2, scrapbooking:2, woodworking:2, fishing:2, hunting, camping, hiking, outdoors, birdwatching, collecting, collectible, wedding:2, party, birthday, ravelry:2, tide chart, fishing license:2',
  'home-garden':
    'home:0.5, house:0.5, garden:2, gardening:2, gardener:2, plant, houseplant:2, lawn:2, landscaping:2, furniture:2, interior design:2, decor, renovation:2, remodel:2, home improvement:2, contractor, plumbing:2, plumber:2, roofing:2, hvac:2, cleaning, laundry, kitchen:0.5, bathroom:0.5, appliance:2, home appliance:2, smart home:2, pest control:2, tree:0.5, flower, mattress, bedding, home security:2',
  'internet-telecom':
    'internet:2, broadband:2, wifi:2, fiber internet:2, internet provider:2, internet service provider:2, isp, mobile phone:2, cell phone:2, phone plan:2, data plan:2, sim:2, esim:2, prepaid, 5g, telecom:2, xfinity:2, verizon:2, web hosting:2, domain name, email, messaging',
  'jobs-education':
    'job:2, career:2, resume:2, cover letter:2, interview, hiring, recruiting, recruiter, job board:2, job search:2, internship:2, salary, education:2, school:2, high school:2, student, teacher:2, tutor:2, tutoring:2, course, lesson:0.5, learn:0.5, learning:0.5, university:2, college:2, exam:2, test prep:2, homework:2, math, algebra:2, khan academy:2, online course:2, training:0.5, certification, language learning:2, learn spanish:2, duolingo:2, language exchange:2, scholarship:2, study:0.5',
  'law-government':
    'law:2, legal:2, lawyer:2, attorney:2, court:2, small claims:2, lawsuit:2, sue:2, contract:2, nda:2, immigration:2, visa:0.5, government:2, policy, regulation, police:2, bail:2, defendant:2, public defender:2, legal document:2, patent:2, trademark:2, copyright, military, voting, permit',
  news: 'news:2, breaking news:2, headline:2, newspaper:2, journalism:2, journalist, local news:2, news today:2, obituary:2, cnn:2, fox news:2, bbc:2, weather, press',
  'online-communities':
    'forum:2, internet forum:2, online community:2, community:0.5, social network:2, social media:2, reddit:2, discord:2, dating:2, online dating:2, online dating service:2, dating app:2, tinder:2, hinge:2, bumble:2, blog, blogging, influencer, meme, chat room, facebook, instagram, tiktok, indie hacker',
  'people-society':
    'parenting:2, parent:0.5, baby, newborn:2, toddler:2, kid, child, family:0.5, mom:2, dad, relationship, marriage, divorce:2, senior, elderly:2, elderly care:2, caregiver:2, charity:2, volunteer, nonprofit:2, religion:2, church, genealogy:2, ancestry, lgbt, funeral:2, respite care:2, assisted living',
  'pets-animals':
    'pet:2, dog:2, puppy:2, cat:2, kitten:2, dog walking:2, dog walker:2, pet sitting:2, vet:2, veterinary:2, veterinarian:2, animal:2, bird, fish:0.5, aquarium:2, betta:2, horse, reptile, pet food:2, cat food:2, dog food:2, litter, rover, chewy:2, dog breed:2, wildlife, zoo',
  'real-estate':
    'real estate:2, property:2, property management:2, apartment:2, rent:2, rental:2, renting:2, tenant:2, landlord:2, housing:2, student housing:2, home buying:2, realtor:2, zillow:2, redfin:2, listing:0.5, condo:2, lease',
  reference:
    'dictionary:2, urban dictionary:2, encyclopedia:2, translation:2, translate:2, translator:2, google translate:2, thesaurus:2, slang:2, definition, meaning:0.5, wikipedia:2, unit conversion:2, grammar:2, language:0.5',
  science:
    'science:2, scientist, astronomy:2, telescope:2, space, nasa:2, planet, meteor shower:2, meteor, eclipse, full moon, physics:2, chemistry:2, biology:2, laboratory:2, lab, lab notebook:2, experiment, climate change:2, ecology, geology:2, engineering:0.5, citizen science:2, star chart:2',
  shopping:
    'shop:2, shopping:2, store, retail:2, ecommerce:2, e commerce:2, marketplace:0.5, resale:0.5, thrift store:2, thrift, vintage clothing:2, clothing:2, apparel:2, shoe, sneaker:2, jewelry:2, coupon:2, discount:0.5, deal:0.5, gift, subscription box, amazon, ebay:2, etsy:2, depop:2, black friday:2, retail company:2, nike, jordan, dropshipping:2, shopify',
  sports:
    'sport:2, soccer:2, football:2, association football:2, basketball:2, baseball:2, tennis:2, golf:2, running:0.5, marathon:2, cycling, swimming, hockey:2, cricket:2, rugby:2, athlete, team:0.5, league, tournament, fantasy football:2, fantasy sport:2, fantasy premier league:2, fpl:2, nfl:2, nba:2, premier league:2, coach:0.5, coaching:0.5, sports league:2, sports team:2',
  travel:
    'travel:2, traveler, traveller, trip:2, vacation:2, holiday:0.5, flight:2, airline:2, airline ticket:2, airport:2, hotel:2, hostel:2, booking:0.5, backpacking:2, budget travel:3, tourism:2, tourist:2, destination, getaway:2, cruise:2, car rental:2, passport:2, airbnb, road trip:2, itinerary:2, google flights:2, expedia:2, tourist attraction:2',
};

interface Term {
  category: Exclude<Category, 'uncategorized'>;
  /** As written in the lexicon, for the `matched` list. */
  term: string;
  tokens: string[];
  weight: number;
}

/** A word's comparable form: lower case, no accents, a plain plural made singular ("flights" → "flight"). */
function stem(word: string): string {
  if (word.length <= 3 || word === 'news' || word.endsWith('ss') || word.endsWith('us') || word.endsWith('is')) return word;
  if (word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (/(ches|shes|xes)$/.test(word)) return word.slice(0, -2);
  if (word.endsWith('s')) return word.slice(0, -1);
  return word;
}

function tokens(text: string): string[] {
  return text
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
    .map(stem);
}

/** Every term, the longest first so that "budget travel" is read before "budget". */
const TERMS: Term[] = Object.entries(LEXICON)
  .flatMap(([category, list]) =>
    list.split(',').map((entry) => {
      const [term, weight] = entry.trim().split(':');
      return { category: category as Term['category'], term: term!, tokens: tokens(term!), weight: weight ? Number(weight) : 1 };
    }),
  )
  .sort((a, b) => b.tokens.length - a.tokens.length);

const FIRST_TOKEN = new Map<string, Term[]>();
for (const t of TERMS) FIRST_TOKEN.set(t.tokens[0]!, [...(FIRST_TOKEN.get(t.tokens[0]!) ?? []), t]);

/** The lexicon's terms in one text, each word used by at most one term (the longest that fits). */
function termsIn(text: string): Term[] {
  const words = tokens(text);
  const found: Term[] = [];
  for (let i = 0; i < words.length;) {
    const hit = FIRST_TOKEN.get(words[i]!)?.find((t) => t.tokens.every((w, k) => words[i + k] === w));
    if (hit) {
      found.push(hit);
      i += hit.tokens.length;
    } else i += 1;
  }
  return found;
}

const round2 = (x: number) => Math.round(x * 100) / 100;

/**
 * The category of an idea in Google's top-level tree, from the evidence its
 * research measured. Each lexicon term found counts once per kind of evidence
 * (its weight × EVIDENCE_WEIGHTS of where it was found); the category with the
 * most points wins; a tie goes to the category with more measured (non-idea)
 * points, then to the first in CATEGORIES. No term found: `uncategorized`.
 */
export function classifyCategory(e: CategoryEvidence): CategoryChoice {
  const texts: Array<[EvidenceSource, string]> = [
    ['idea', e.idea],
    ...e.phrases.map((p): [EvidenceSource, string] => ['idea', p]),
    ...e.topics.map((t): [EvidenceSource, string] => ['topic', t.title]),
    ...e.topics.map((t): [EvidenceSource, string] => ['topic-type', t.type]),
    ...(e.relatedQueries ?? []).map((q): [EvidenceSource, string] => ['related-query', q]),
    ...(e.relatedTopics ?? []).map((t): [EvidenceSource, string] => ['related-topic', t.label]),
    ...(e.relatedTopics ?? []).map((t): [EvidenceSource, string] => ['related-topic-type', t.type ?? '']),
    ...(e.freebaseTypes ?? []).map((t): [EvidenceSource, string] => ['freebase', t]),
  ];
  // One term counts once per source: twenty related queries saying "dog" are one "dog".
  const counted = new Map<string, { term: Term; source: EvidenceSource; points: number }>();
  for (const [source, text] of texts) {
    for (const term of termsIn(text)) {
      const key = `${source}\u0000${term.category}\u0000${term.term}`;
      if (!counted.has(key)) counted.set(key, { term, source, points: term.weight * EVIDENCE_WEIGHTS[source] });
    }
  }
  const scores: Partial<Record<Category, number>> = {};
  const measured: Partial<Record<Category, number>> = {};
  for (const { term, source, points } of counted.values()) {
    scores[term.category] = (scores[term.category] ?? 0) + points;
    if (source !== 'idea') measured[term.category] = (measured[term.category] ?? 0) + points;
  }
  const order = Object.keys(CATEGORIES) as Category[];
  const ranked = (Object.keys(scores) as Category[]).sort(
    (a, b) => scores[b]! - scores[a]! || (measured[b] ?? 0) - (measured[a] ?? 0) || order.indexOf(a) - order.indexOf(b),
  );
  const winner = ranked[0];
  const rounded = Object.fromEntries(ranked.map((c) => [c, round2(scores[c]!)])) as Partial<Record<Category, number>>;
  if (!winner) return { category: 'uncategorized', google_id: null, confidence: 0, matched: [], scores: {} };
  const best = scores[winner]!;
  const total = Object.values(scores).reduce((a, b) => a + b, 0);
  const matched = [...counted.values()]
    .filter((c) => c.term.category === winner)
    .sort((a, b) => b.points - a.points || a.source.localeCompare(b.source) || a.term.term.localeCompare(b.term.term))
    .map((c) => `${c.source}:${c.term.term}`);
  return {
    category: winner,
    google_id: CATEGORIES[winner].google_id,
    confidence: round2((best / total) * Math.min(1, best / STRONG_EVIDENCE)),
    matched,
    scores: rounded,
  };
}
