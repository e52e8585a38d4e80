// An idea's category in Google's top-level tree (CATEGORIES), from what the
// research measured: Google's topic types and the related searches weigh more
// than the idea's own words. A weighted lexicon, so every decision can be read
// back as the terms that made it. How it was built and how often it is right:
// docs/categories.md.
import { CATEGORIES, type Category } from '../catalog.js';
import { nounChunks } from './noun-phrases.js';
import { WORDNET_CATEGORIES } from './wordnet-categories.js';

/** What research measured about an idea, as the classifier reads it. */
export interface CategoryEvidence {
  /** The idea as typed (or a demo topic's name). */
  idea: string;
  /** The search phrases taken from the idea (step extract_phrases). */
  phrases: readonly string[];
  /** Autocomplete topics (step autocomplete_phrases); `type` is Google's topic type ("Food", "Dog breed", "Software"). */
  topics: ReadonlyArray<{ title: string; type: string }>;
  /** Related queries, top and rising (steps related_queries_top and related_queries_rising). */
  relatedQueries?: readonly string[];
  /** Related topics (steps related_topics_top and related_topics_rising), with Google's topic type when it gave one. */
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
 * outweighs the words the idea's author chose; among those words, the head of
 * the idea's noun phrase (the thing it is about: "padel" in "padel court
 * bookings", "food" in "vegan pet food subscription box") outweighs the others,
 * and words after "for"/"with" (who it is for) count least.
 */
export const EVIDENCE_WEIGHTS = {
  head: 3,
  compound: 2,
  idea: 1,
  audience: 0.5,
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
    'jazz:2, jazz club:2, blues, hip hop:2, classical music:2, live music:2, spotify:2, graffiti:2, light show:2, drone show:2, photo book:2, photo album:2, photo:1, photo printing:2, entertainment:2, movie:2, film:2, cinema:2, music:2, song, musician:2, concert:2, music festival:2, band, album, piano:2, guitar:2, violin:2, drum, singer, karaoke, tv show:2, tv series:2, television, netflix, comedy, theater, theatre, celebrity, anime:2, manga:2, comic, cartoon, animation, painting, art, artist, drawing, photography, museum, ticket:0.5, ticketmaster:2, stubhub:2, musical instrument:2, musical artist:2, dj, dance, orchestra, opera, podcast, video editor:2, video editing:2, videographer:2, videography:2, photographer:2, recording studio:2, record label:2, radio, nightlife:2, nightclub:2, comedy club:2, comedian:2, humor, festival, event listing:2, actor, acting, broadway:2, gallery, art gallery:2, sculpture:2, graphic design:2, illustrator, illustration, streaming:0.5, film festival:2, circus, magician, event:0.5, tv:0.5, theater ticket:2, vinyl record:2, vinyl:2, stand up comedy:2, open mic:2',
  'autos-vehicles':
    'carpool:2, carpooling:2, ride share:2, rideshare:2, ride hailing:2, gas price:2, gas station:2, fuel:2, petrol:2, gasoline:2, pothole:2, road:0.5, car:2, vehicle:2, auto, automobile:2, motorcycle:2, motorbike:2, suv:2, sedan, tire, tyre, car dealer:2, dealership, used car:2, car wash:2, mechanic, oil change, electric vehicle:2, ev charging:2, charging station, kelley blue book:2, carmax:2, truck:0.5, boat, rv, scooter, automobile make:2, car model:2, harley davidson:2, car value:2, bike, bicycle, e bike:2, ebike:2, electric bike:2, moped:2, yacht, sailboat, jet ski:2, watercraft:2, camper:2, motorhome:2, driving, driving school:2, driving lesson:2, traffic, auto repair:2, windshield:2, ev:2, ev charger:2, tesla:2, car sharing:2, ride sharing:2, garage:0.5, dmv:2, towing:2, car seat, e scooter:2, electric scooter:2, campervan:2, van:0.5, parking:2, parking lot:2, car detailing:2, detailing:2',
  'beauty-fitness':
    'sheet mask:2, face mask:1, soap:2, men grooming:2, male grooming:2, beard grooming:2, stretch:1, stretching:2, cold plunge:2, ice bath:2, sauna:2, razor:2, razor blade:2, beauty:2, fitness:2, workout:2, exercise:2, gym:2, yoga:2, pilates:2, crossfit:2, personal trainer:2, weight loss, bodybuilding:2, skincare:2, skin care:2, makeup:2, cosmetic:2, cosmetics:2, hair, hairstyle:2, salon, nail, spa, perfume:2, fragrance, moisturizer:2, face wash:2, push up:2, bodyweight, cardio, fashion, barber, manicure:2, hot yoga:2, tattoo:2, piercing:2, massage:2, hairdresser:2, stylist, eyebrow:2, threading, eyelash:2, lash, waxing:2, nail salon:2, makeup artist:2, personal training:2, protein powder:2, body care, sunscreen:2, deodorant, shaving, beard, gym membership:2, fitness class:2, boxing gym:2, dermatology, anti aging:2, plastic surgery:2, botox:2, haircut:2',
  'books-literature':
    'ghostwriting:2, story:1, bedtime story:2, short story:2, book:2, novel:2, author, audiobook:2, ebook:2, kindle, poetry:2, poem, literature:2, reading, book club:2, publishing, self publishing:2, writer, audible:2, goodreads:2, fiction, book summary:2, magazine, fan fiction:2, library, bookstore:2, publisher, storytelling, reading list:2, comic book:2, bookshop:2, literary:2, writing:0.5, ghostwriter:2, picture book:2, childrens book:2, manuscript:2, textbook',
  'business-industrial':
    'slack, salesforce:2, zendesk:2, intercom, calendly:2, asana, pipedrive:2, customer email:2, customer support:2, customer service:2, founder:1, business card:2, electricity:2, energy usage:2, competitor:1, competitive intelligence:2, price monitoring:2, hr:2, employee:0.5, cold email:2, sales outreach:2, recycling:1, leadership:2, executive coaching:2, management training:2, corporate:0.5, corporate gift:2, corporate gifting:2, business:0.5, b2b, marketing:2, advertising:2, seo:2, email marketing:2, newsletter, lead generation:2, sales:0.5, crm, logistics:2, freight:2, shipping:0.5, supply chain:2, warehouse:2, manufacturing:2, factory, wholesale:2, packaging:2, construction, industrial:2, agriculture, farming, energy, solar:2, solar panel:2, solar power:2, renewable, utility, mining, small business:0.5, entrepreneur, consulting, human resources:2, trucking:2, truck driver, load board:2, freight broker:2, mailchimp:2, hubspot, office supplies, coworking:2, co working:2, office:0.5, office space:2, agritech:2, heavy equipment:2, machinery:2, forklift:2, excavator:2, printing:0.5, print shop:2, staffing:2, supplier:0.5, procurement:2, startup:0.5, hospitality:0.5, trade show:2, courier:2, fleet management:2, pallet:2, last mile:2, crop:2, livestock:2, tractor:2, greenhouse, welding:2, cnc:2, textile, event planning, construction equipment:2, farm:2, farmer:2, drone delivery:2',
  'computers-electronics':
    'notion, figma:2, chrome extension:2, chrome, excel, google sheets:2, airtable:2, trello:2, jira:2, dropbox, wordpress:2, webflow:2, zapier:2, transcription:1, speech to text:2, computer:2, laptop:2, pc, programming:2, code:2, coding:2, developer:2, github:2, api, sdk, debug, devops:2, database, cloud computing:2, aws, amazon web services:2, azure:2, server, linux:2, windows, macbook:2, hardware, electronics:2, gadget, ai:0.5, artificial intelligence, machine learning:2, llm, large language model, chatgpt, gpt, copilot, chatbot, neural network, data science, cybersecurity:2, computer security:2, password:2, password manager:2, vpn:2, antivirus:2, encryption, malware:2, backup, 3d printing:2, computer repair:2, it support, programming language:2, operating system:2, code review:2, headphone:2, earbud:2, speaker:0.5, smartwatch:2, tablet, cloud, cloud storage:2, photo backup:2, software:0.5, keyboard, monitor:0.5, printer:2, gpu:2, graphics card:2, raspberry pi:2, arduino:2, robot, robotic, iot:2, smart device, wearable:2, data recovery:2, tech support:2, app development:2, web scraping, automation:0.5, no code:2, open source:2, gaming laptop:2, 3d printer:2, vr:2, virtual reality:2, camera, drone, uptime:2',
  finance:
    'stripe, bill:1, utility bill:2, bill splitting:2, split bill:2, finance:2, financial:2, bank:2, banking:2, loan:2, mortgage, credit, credit card:2, credit score:2, debt, budget, budgeting:2, saving, savings, invest:2, investing:2, investment:2, stock, stock market:2, trading, portfolio:0.5, crypto:2, cryptocurrency:2, bitcoin:2, ethereum:2, coinbase:2, tax:2, tax return:2, irs:2, 1099:2, turbotax:2, accounting:2, accountant:2, bookkeeping:2, quickbooks:2, xero:2, invoice:2, invoicing:2, billing, payment:2, insurance:2, vehicle insurance:2, car insurance:2, pension, money, fintech:2, payroll, currency:2, paypal, venmo, expense, wealth, 401k:2, forex:2, geico:2, ira, roth ira:2, financing:2, lending:2, lender:2, wallet, crowdfunding:2, donation:0.5, tipping, payout, invoice financing:2, savings account:2, mortgage rate:2, tax preparation:2, financial advisor:2, robo advisor:2, stock trading:2, net worth:2, debt collection, fundraising:0.5, retirement:1, estate planning:1, credit union:2, tax calculator:2, loan comparison:2',
  'food-drink':
    'fruit:2, vegetable:2, veggie:2, caffeine:1, vending:1, vending machine:2, fermentation:2, home brewing:2, homebrew:2, shared kitchen:2, commercial kitchen:2, commissary kitchen:2, cloud kitchen:2, ghost kitchen:2, dark kitchen:2, food:2, meal:2, recipe:2, cooking:2, cook, restaurant:2, chef, dinner, lunch, breakfast, snack, coffee:2, tea, beer:2, craft beer:2, brewery:2, ipa, wine:2, cocktail:2, grocery:2, bakery:2, baking, pizza:2, bagel, vegan, vegetarian, meal prep:2, meal preparation:2, meal kit:2, meal planning:2, meal plan:2, meal planner:2, dish:2, ingredient:2, beverage:2, cuisine:2, sauce, dessert, candy, chocolate, cheese, sommelier:2, food pairing:2, catering, cafe, drink, juice, smoothie, soup, salad, pasta, steak, sushi, burger, bbq, protein bar:2, energy bar:2, granola:2, dairy:2, milk, gluten free:2, keto, paleo, grocery store:2, coffee bean:2, coffee shop:2, kombucha:2, winery:2, vineyard:2, distillery:2, whiskey:2, vodka:2, spirit:0.5, bartender:2, food truck:2, meal delivery:2, lunchbox, snack box:2, protein:0.5, bread:2, sourdough:2, cake, cookie, ice cream:2, spice:2, hot sauce:2, olive oil:2, honey, farmers market:2, food waste:2, baby food, plant based:1, tasting:0.5, wine club:2',
  games:
    'game:2, gaming:2, video game:2, gamer:2, esports:2, speedrun:2, minecraft:2, fortnite:2, roblox:2, playstation:2, xbox:2, nintendo:2, twitch, board game:2, card game:2, puzzle, chess:2, trivia:2, poker, casino, kahoot:2, catan:2, tabletop, miniature:2, wargaming:2, warhammer:2, dungeons dragons:2, dnd:2, rpg:2, role playing game:2, arcade:2, crossword:2, sudoku:2, bingo:2, lottery:2, betting:2, sports betting:2, gambling:2, tabletop game:2, mobile game:2, game night:2, console, steam, escape room:2',
  health:
    'pill:2, nursing:2, home nursing:2, phlebotomy:2, phlebotomist:2, blood draw:2, lab test:2, hearing test:2, hearing loss:2, audiologist:2, postpartum:2, prenatal:2, eyeglass:2, cholesterol:2, insulin:2, period product:2, menstrual product:2, tampon:2, sanitary pad:2, contact lenses:2, hydration:2, water bottle:1, pain:2, chronic pain:2, detox:2, blood sugar:2, glucose:2, diabetic:2, glasses:1, contact lens:2, smoking:2, quit smoking:2, vaping:2, smoking cessation:2, health:2, medical:2, medicine, doctor:2, clinic:2, hospital:2, patient, symptom:2, disease:2, illness, diagnosis, therapy, therapist, mental health:2, anxiety:2, depression:2, meditation, sleep, insomnia:2, diabetes:2, nutrition, vitamin:2, multivitamin:2, supplement, dietary supplement:2, diet:0.5, pharmacy:2, drug, medication:2, prescription, telehealth:2, telemedicine:2, nurse, dental:2, dentist:2, covid, flu, cancer:2, pregnancy, fertility, webmd:2, medical condition:2, headspace, physiotherapy:2, physical therapy:2, physical therapist:2, counseling:2, counselor, psychologist:2, psychiatrist:2, rehab:2, rehabilitation:2, addiction:2, sobriety:2, sober, allergy:2, asthma:2, vaccine:2, vaccination:2, pediatric, pediatrician:2, optometrist:2, eye exam:2, hearing aid:2, orthodontist:2, chiropractor:2, acupuncture:2, blood pressure:2, heart rate, sleep tracking:2, menstrual:2, period tracker:2, ivf:2, midwife, urgent care:2, health insurance:2, wellness:0.5, dental clinic:2, caregiving, hospice:2, stress, mindfulness, migraine:2, physician:2, skin condition, posture',
  'hobbies-leisure':
    'bouncy castle:2, event space:2, coin:1, rare coin:2, hobby:2, craft, knitting:2, knitting pattern:2, crochet:2, sewing:2, quilting:2, scrapbooking:2, woodworking:2, fishing:2, hunting, camping, hiking, outdoors, birdwatching, collecting, collectible, wedding:2, party, birthday, ravelry:2, tide chart, fishing license:2, pottery:2, ceramic, candle making:2, diy:0.5, lego:2, model train:2, model railroad:2, rc car:2, metal detecting:2, tent:2, camping gear:2, hiking trail:2, trail, boating:2, sailing:2, paddleboard:2, party venue:2, party planning:2, event venue:2, wedding planner:2, wedding planning:2, anniversary, halloween:2, christmas, costume, cosplay:2, woodworker:2, embroidery:2, stamp collecting:2, coin collecting:2, magic trick:2, climbing:1, bushcraft:2, astrophotography, birding:2, bird watching:2, fishing gear:2, campsite:2, campground:2, fishing charter:2, fishing trip:2',
  'home-garden':
    'roof repair:2, roof inspection:2, pool maintenance:2, pool service:2, rainwater:2, rain barrel:2, power tool:2, standing desk:2, desk:1, moving box:2, fruit tree:2, curtain:2, window blind:2, fire safety:2, smoke detector:2, fertilizer:2, snow plowing:2, snow plow:2, paint:1, house paint:2, bed bug:2, bedbug:2, wood:1, lumber:2, timber:2, reclaimed wood:2, garage door:2, water damage:2, restoration:0.5, repellent:1, insect repellent:2, mosquito repellent:2, holiday light:2, christmas light:2, holiday decoration:2, rodent control:2, exterminator:2, sprinkler:2, irrigation:2, air purifier:2, air quality:1, hot tub:2, smart lock:2, home:0.5, house:0.5, garden:2, gardening:2, gardener:2, plant, houseplant:2, lawn:2, landscaping:2, furniture:2, interior design:2, decor, renovation:2, remodel:2, home improvement:2, contractor, plumbing:2, plumber:2, roofing:2, hvac:2, cleaning, laundry, kitchen:0.5, bathroom:0.5, appliance:2, home appliance:2, smart home:2, pest control:2, tree:0.5, flower, mattress, bedding, home security:2, maid:2, cleaner, handyman:2, electrician:2, house painter:2, flooring:2, carpet:2, rug, lighting, lamp, sofa:2, couch:2, storage:0.5, shelving:2, closet:2, swimming pool:2, pool cleaning:2, patio:2, yard:2, backyard:2, lawn mower:2, mower:2, snow removal:2, gutter:2, window cleaning:2, mover:1, moving company:2, renovate:2, home repair:2, smart thermostat:2, thermostat:2, garden tool:2, compost:2, seed, interior designer:2, kitchen remodel:2, bathroom remodel:2, homeowner:2, home decor:2, furniture assembly:2, house cleaning:2, home cleaning:2',
  'internet-telecom':
    'whatsapp:2, telegram, gmail:2, skype:2, google meet:2, microsoft teams:2, internet:2, broadband:2, wifi:2, fiber internet:2, internet provider:2, internet service provider:2, isp, mobile phone:2, cell phone:2, phone plan:2, data plan:2, sim:2, esim:2, prepaid, 5g, telecom:2, xfinity:2, verizon:2, web hosting:2, domain name, email, messaging, calling:1, international calling:2, phone call:2, voip:2, video call:1, video chat:1, texting:2, sms:2, phone:1, smartphone:2, phone repair:2, router:2, mesh wifi:2, website:1, web design:2, website builder:2, web developer:2, hosting:2, domain:0.5, sim card:2, roaming:2, cable tv:2, video conferencing:2, zoom, chat:0.5, url shortener:2, browser extension:2, browser:2, website monitoring:2, internet plan:2',
  'jobs-education':
    'mentoring:1, alumni:2, professional networking:2, sign language:2, job:2, career:2, resume:2, cover letter:2, interview, hiring, recruiting, recruiter, job board:2, job search:2, internship:2, salary, education:2, school:2, high school:2, student, teacher:2, tutor:2, tutoring:2, course, lesson:0.5, learn:0.5, learning:0.5, university:2, college:2, exam:2, test prep:2, homework:2, math, algebra:2, khan academy:2, online course:2, training:0.5, certification, language learning:2, learn spanish:2, duolingo:2, language exchange:2, scholarship:2, study:0.5, sat:2, gre:2, gmat:2, lsat:2, mba:2, degree, classroom:2, homeschool:2, homeschooling:2, kindergarten:2, curriculum:2, flashcard:2, quiz, spanish, french, german, japanese, mandarin, english lesson:2, esl:2, freelance:1, freelancer:1, gig:0.5, remote job:2, applicant:2, job seeker:2, student loan, study abroad, online degree:2, professor, lecture, phd:2, thesis:2, essay:2, skill, upskilling:2, apprenticeship:2, mentorship:1, mentor:1, career coach:2, bootcamp:2, coding bootcamp:2',
  'law-government':
    'law:2, legal:2, lawyer:2, attorney:2, court:2, small claims:2, lawsuit:2, sue:2, contract:2, nda:2, immigration:2, visa:0.5, government:2, policy, regulation, police:2, bail:2, defendant:2, public defender:2, legal document:2, patent:2, trademark:2, copyright, military, voting, permit, parking ticket:2, speeding ticket:2, appeal:1, citizenship:2, green card:2, deportation:2, notary:2, custody:2, child custody:2, eviction:2, legal aid:2, paralegal:2, compliance:1, gdpr:2, crime:2, emergency service:2, firefighter:2, veteran:2, social security:2, welfare:2, election:2, vote:2, politics, public record:2, legal advice:2, last will:2, traffic ticket:2, dispute:0.5, paperwork:0.5, will writing:2',
  news: 'news:2, breaking news:2, headline:2, newspaper:2, journalism:2, journalist, local news:2, news today:2, obituary:2, cnn:2, fox news:2, bbc:2, weather, press, press release:2, local event:1, current event:2, news digest:2, fact check:2, fact checking:2, news aggregator:2',
  'online-communities':
    'pinterest:2, snapchat:2, twitter, substack:2, linkedin:2, forum:2, internet forum:2, online community:2, community:0.5, social network:2, social media:2, reddit:2, discord:2, dating:2, online dating:2, online dating service:2, dating app:2, tinder:2, hinge:2, bumble:2, blog, blogging, influencer, meme, chat room, facebook, instagram, tiktok, indie hacker, nextdoor:2, meetup:2, matchmaking:2, matchmaker:2, singles:2, friend finder:2, social app:2, group chat:1, fan club:2, online forum:2, message board:2, youtube, creator:0.5, content creator:2, streamer:2, subreddit:2, neighborhood:0.5',
  'people-society':
    'tarot:2, astrology:2, horoscope:2, psychic:1, eldercare:2, parenting:2, parent:0.5, baby, newborn:2, toddler:2, kid, child, family:0.5, mom:2, dad, relationship, marriage, divorce:2, senior, elderly:2, elderly care:2, caregiver:2, charity:2, volunteer, nonprofit:2, religion:2, church, genealogy:2, ancestry, lgbt, funeral:2, respite care:2, assisted living, babysitter:2, babysitting:2, childcare:2, child care:2, daycare:1, teen:1, teenager, senior citizen:2, retiree:2, aging parent:2, loneliness:2, grief:2, bereavement:2, memorial:2, fundraiser:1, philanthropy:2, volunteering:2, mosque:2, synagogue:2, prayer:2, bible:2, faith, doula:2, adoption:2, foster care:2, elder care:2, home care:1, refugee:2, homeless:2, couple:0.5, coparenting:2, co parenting:2, baby sleep:2, diaper:2, stroller:2, nanny:2, companion:0.5, companionship:2, baby formula:2',
  'pets-animals':
    'guinea pig:2, chinchilla:2, ferret:2, fish food:2, bird food:2, beehive:2, bee:2, hive:1, dog treat:2, cat treat:2, pet treat:2, pet:2, dog:2, puppy:2, cat:2, kitten:2, dog walking:2, dog walker:2, pet sitting:2, vet:2, veterinary:2, veterinarian:2, animal:2, bird, fish:0.5, aquarium:2, betta:2, horse, reptile, pet food:2, cat food:2, dog food:2, litter, rover, chewy:2, dog breed:2, wildlife, zoo, pet grooming:2, dog grooming:2, grooming:0.5, pet owner:2, dog owner:2, cat owner:2, horse boarding:2, equestrian:2, pet insurance:1, pet sitter:2, dog trainer:2, dog training:2, puppy training:2, kennel:2, hamster:2, rabbit, chicken coop:2, backyard chicken:2, beekeeping:2, pet adoption:2, animal shelter:2, pet supply:2, pet store:2, fish tank:2, parrot:2, dog park:2, dog daycare:2, doggy daycare:2, horse riding:2, bird feeder:2, birdseed:2, cat litter:2, litter box:2',
  'real-estate':
    'real estate:2, property:2, property management:2, apartment:2, rent:2, rental:2, renting:2, tenant:2, landlord:2, housing:2, student housing:2, home buying:2, realtor:2, zillow:2, redfin:2, listing:0.5, condo:2, lease, home buyer:2, homebuyer:2, first time buyer:2, house hunting:2, mortgage broker, commercial property:2, commercial real estate:2, roommate:2, flatmate:2, sublet:2, subletting:2, tenant screening:2, property listing:2, open house:2, real estate agent:2, property manager:2, hoa:2, vacation home:1, short term rental:1, house flipping:2, land:0.5, tiny house:1, storage unit:1, self storage:1',
  reference:
    'dictionary:2, urban dictionary:2, encyclopedia:2, translation:2, translate:2, translator:2, google translate:2, thesaurus:2, slang:2, definition, meaning:0.5, wikipedia:2, unit conversion:2, grammar:2, language:0.5, citation:2, citation generator:2, bibliography:2, apa:2, mla:2, glossary:2, word of the day:2, etymology:2, how to:0.5, map:0.5, almanac:2, calculator:0.5, converter:1, time zone:2',
  science:
    'research paper:2, academic paper:2, scientific paper:2, research:0.5, science:2, scientist, astronomy:2, telescope:2, space, nasa:2, planet, meteor shower:2, meteor, eclipse, full moon, physics:2, chemistry:2, biology:2, laboratory:2, lab, lab notebook:2, experiment, climate change:2, ecology, geology:2, engineering:0.5, citizen science:2, star chart:2, observatory:2, microscope:2, scientific:2, research lab:2, biotech:1, genetics:2, genome:2, dna:1, fossil:2, paleontology:2, periodic table:2, chemical element:2, space exploration:2, rocket:2, satellite:1, mathematics:1, statistics:0.5, weather station:1, environmental science:2, marine biology:2, neuroscience:2, physicist, chemist, biologist, astronaut:2, stargazer:2, stargazing:2, lab equipment:2, laboratory equipment:2',
  shopping:
    'woocommerce:2, stationery:2, bulk buying:2, sunglasses:2, virtual try on:1, watch:1, wristwatch:2, tailor:2, alteration:1, gifting:0.5, shop:2, shopping:2, store, retail:2, ecommerce:2, e commerce:2, marketplace:0.5, resale:0.5, thrift store:2, thrift, vintage clothing:2, clothing:2, apparel:2, shoe, sneaker:2, jewelry:2, coupon:2, discount:0.5, deal:0.5, gift, subscription box, amazon, ebay:2, etsy:2, depop:2, black friday:2, retail company:2, nike, jordan, dropshipping:2, shopify, used clothing:2, clothing resale:2, consignment:2, outlet:2, price comparison:1, price tracker:2, cashback:2, rebate:2, gift card:2, gift box:1, online store:2, boutique:2, handbag:2, accessory, wardrobe, clothes:2, dress, streetwear:2, personal shopper:2, shopping list:2, haul, authentication:0.5, secondhand:1, second hand:1, kids clothing:2',
  sports:
    'kitesurfing:2, kiteboarding:2, windsurfing:2, wakeboarding:2, runner:2, climbing wall:2, self defense:2, sport:2, soccer:2, football:2, association football:2, basketball:2, baseball:2, tennis:2, golf:2, running:0.5, marathon:2, cycling, swimming, hockey:2, cricket:2, rugby:2, athlete, team:0.5, league, tournament, fantasy football:2, fantasy sport:2, fantasy premier league:2, fpl:2, nfl:2, nba:2, premier league:2, coach:0.5, coaching:0.5, sports league:2, sports team:2, padel:2, pickleball:2, squash:1, badminton:2, volleyball:2, boxing:2, martial art:2, karate:2, judo:2, jiu jitsu:2, mma:2, wrestling:2, rowing:2, surfing:2, kayaking:2, canoe, skiing:2, snowboard:2, snowboarding:2, ski resort, bouldering:2, rock climbing:2, scuba:2, scuba diving:2, diving, triathlon:2, racket, stadium:2, athletic:2, sports equipment:2, sporting good:2, golf course:2, skateboarding:2, skateboard:2, sports club, referee:2, umpire, sports analytics:2, fantasy:0.5, tennis court:2, bowling:2, lacrosse:2, softball:2, cheerleading:2, gymnastics:2, fencing:1, archery:2, trail running:2, running shoe:2, cyclist:2, sports coach:2, jersey, surf:2, surfboard:2, kayak:1, ski:2, climbing gym:2, tee time:2',
  travel:
    'private jet:2, jet:1, public toilet:2, retreat:1, travel:2, traveler, traveller, trip:2, vacation:2, holiday:0.5, flight:2, airline:2, airline ticket:2, airport:2, hotel:2, hostel:2, booking:0.5, backpacking:2, budget travel:3, tourism:2, tourist:2, destination, getaway:2, cruise:2, car rental:2, passport:2, airbnb, road trip:2, itinerary:2, google flights:2, expedia:2, tourist attraction:2, travel itinerary:2, layover:2, visa application:1, travel insurance:2, luggage:2, suitcase:2, tour guide:2, guided tour:2, excursion:2, resort:2, bed and breakfast:2, honeymoon:2, digital nomad:2, travel agent:2, space tourism:2, train ticket:2, train travel:2, rail pass:2, ferry:2, road trip planner:2, staycation:2, travel buddy:2, travel companion:2, campervan rental:2, motorhome rental:2, itinerary planner:2, airport lounge:2, lounge:0.5, tour:1, group travel:2, van life:2, vanlife:2',
};

/**
 * Terms that say how an idea is sold or where it happens rather than what it
 * is about: "court" in "padel court bookings", "space" in "coworking space
 * booking", "rental" in "electric bike rental". They stay in their category's
 * list, so they confirm it ("apartment rental" is Real Estate by both words),
 * but a category that only a modifier points to scores nothing, and a modifier
 * is never the head. Form words that point nowhere (app, online, platform,
 * subscription) are in no list at all.
 */
const MODIFIERS = new Set([
  'rent',
  'rental',
  'renting',
  'lease',
  'leasing',
  'booking',
  'space',
  'court',
  'ticket',
  'marketplace',
  'subscription box',
  'store',
  'shop',
  'listing',
  'resale',
  'deal',
  'discount',
  'gift',
  'newsletter',
  'tournament',
  'league',
  'community',
  'business',
  'small business',
  'training',
  'lesson',
  'coach',
  'coaching',
  'home',
  'house',
  'team',
]);

/**
 * Words that name who or what delivers the subject rather than the subject:
 * "yoga teachers", "retirement planning calculator", "dog training video
 * courses", "board game rental library". Unlike a modifier they decide when
 * the idea names nothing else ("Tutoring marketplace" is Jobs & Education),
 * but when the same part of the idea names a subject, the subject is the head.
 */
const DELIVERY = new Set([
  'teacher',
  'tutor',
  'tutoring',
  'course',
  'online course',
  'lecture',
  'skill',
  'library',
  'calculator',
  'converter',
  'price comparison',
  'drone',
  'camera',
  'robot',
  'gadget',
  'lounge',
  'mentor',
  'mentorship',
  'certification',
  'consulting',
  'monitor',
  'ingredient',
  'gym',
]);

/** Delivery words that are a tool in themselves ("Unit converter for recipes" is Reference): they keep the head. */
const TOOLS = new Set(['calculator', 'converter', 'price comparison']);

/**
 * Words that name people an idea serves, not what it is about: "App that
 * teaches kids to swim" is about swimming. As the head of the idea's first
 * part they give way to a subject named after a boundary word; alone they
 * decide ("Babysitter matching for parents" stays with babysitters: a person
 * who delivers is no audience).
 */
const PEOPLE = new Set([
  'kid',
  'child',
  'parent',
  'teen',
  'teenager',
  'toddler',
  'baby',
  'newborn',
  'mom',
  'dad',
  'family',
  'senior',
  'senior citizen',
  'elderly',
  'retiree',
  'student',
]);

/**
 * How an idea is built rather than what it is about: the subject decides when
 * the idea names one ("AI chatbot for dentists" is Health), the technique only
 * when it is all there is ("Chatbot builder").
 */
const TECHNIQUES = new Set([
  'ai',
  'artificial intelligence',
  'chatbot',
  'llm',
  'large language model',
  'gpt',
  'chatgpt',
  'software',
  'api',
  'automation',
  // A brand named as the model ("Tinder for adopting rescue dogs", "Netflix for audiobooks", "Airbnb for boats"):
  // the subject is what follows it; the brand decides only when nothing else is named.
  'tinder',
  'netflix',
  'airbnb',
  'uber',
  'amazon',
  'etsy',
  'ebay',
  'zillow',
  'duolingo',
  'youtube',
  'instagram',
  'tiktok',
  'facebook',
  'reddit',
  'discord',
  'shopify',
  'zoom',
]);

/**
 * Platforms people build on or sell through, named as brands ("Team retrospective bot for Slack", "Shopify app that
 * recovers abandoned carts", "Etsy seller inventory tracker"): software for that platform, filed under the platform's
 * category (Slack → Business & Industrial, Stripe → Finance, Figma → Computers & Electronics). Such a brand is a
 * subject, never a word WordNet reads ("slack" would be slacks, clothing), except as the model of an "X for Y" idea
 * ("Shopify for restaurants", "Tinder for adopting rescue dogs"), where it is a technique and the subject follows.
 */
const PLATFORM_HOSTS = new Set([
  ...['slack', 'salesforce', 'zendesk', 'intercom', 'calendly', 'asana', 'pipedrive', 'hubspot', 'mailchimp'],
  ...['notion', 'figma', 'chrome', 'excel', 'google sheets', 'airtable', 'trello', 'jira', 'dropbox', 'wordpress', 'webflow', 'zapier'],
  ...['stripe', 'paypal', 'quickbooks', 'xero'],
  ...['whatsapp', 'telegram', 'gmail', 'skype', 'google meet', 'microsoft teams', 'zoom'],
  ...[
    'pinterest',
    'snapchat',
    'twitter',
    'substack',
    'instagram',
    'tiktok',
    'youtube',
    'facebook',
    'reddit',
    'discord',
    'linkedin',
    'twitch',
  ],
  ...['spotify', 'shopify', 'woocommerce', 'etsy', 'amazon', 'ebay'],
]);
for (const brand of PLATFORM_HOSTS) TECHNIQUES.add(brand);

/** Words after which an idea says who or what it is for, not what it is ("Budget travel app for students"). */
const BOUNDARIES = new Set([
  'for',
  'with',
  'by',
  'via',
  'at',
  'in',
  'on',
  'to',
  'from',
  'near',
  'without',
  'per',
  'through',
  'among',
  // A second thing: the first named is what the idea is about ("your dog's walks and health").
  'and',
  // Where a clause or a second thing begins: "a dog sitter while you travel", "car subscription instead of leasing",
  // "a therapist who takes your insurance" ("that" is not one: "Smart collar that monitors a cat's health" is about the cat).
  'who',
  'which',
  'where',
  'while',
  'when',
  'whenever',
  'during',
  'after',
  'before',
  'instead',
  'using',
  'between',
  'across',
  'into',
  'over',
  'within',
]);

interface Term {
  category: Exclude<Category, 'uncategorized'>;
  /** As written in the lexicon, for the `matched` list. */
  term: string;
  tokens: string[];
  weight: number;
  /** A MODIFIERS term: confirms a category, never decides one. */
  modifier: boolean;
}

/** A word's comparable form: lower case, no accents, a plain plural made singular ("flights" → "flight"). */
function stem(word: string): string {
  // Irregular plurals of people ("handymen", "craftsmen", "women", "children").
  if (/[^aeiou]men$/.test(word) && word.length > 4) return `${word.slice(0, -3)}man`;
  if (word === 'children') return 'child';
  // "dresses", "glasses", "classes": the plural of a word in -ss.
  if (word.endsWith('sses')) return word.slice(0, -2);
  if (word.length <= 3 || word === 'news' || word.endsWith('ss') || word.endsWith('us') || word.endsWith('is')) return word;
  if (word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (/(ches|shes|xes)$/.test(word)) return word.slice(0, -2);
  if (word.endsWith('s')) return word.slice(0, -1);
  return word;
}

function tokens(text: string): string[] {
  return (
    text
      .toLowerCase()
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      // British spellings read as American ones ("neighbourhood", "colour", "labour").
      .replace(/(b|l|v|m|n|vi)our/g, '$1or')
      // A possessive is its noun ("men's grooming", "a dog's walks"), not a word "s".
      .replace(/(?<=\p{L})['’]s\b/gu, '')
      .split(/[^\p{L}\p{N}]+/u)
      .filter(Boolean)
      .map(stem)
  );
}

/** Every term, the longest first so that "budget travel" is read before "budget". */
const LEXICON_TERMS: Term[] = Object.entries(LEXICON).flatMap(([category, list]) =>
  list.split(',').map((entry) => {
    const [term, weight] = entry.trim().split(':');
    return {
      category: category as Term['category'],
      term: term!,
      tokens: tokens(term!),
      weight: weight ? Number(weight) : 1,
      modifier: MODIFIERS.has(term!),
    };
  }),
);

/** Agent nouns that are other words ("betting" → "better", "towing" → "tower", "drawing" → "drawer"). */
const NOT_AGENTS = new Set(['better', 'tower', 'drawer', 'sewer', 'parker', 'builder', 'planner', 'booker', 'liner', 'clother', 'houser']);

/**
 * Who does what a lexicon activity names is about it too: "birdwatchers" for
 * "birdwatching", "hikers" for "hiking", "roofers" for "roofing" (the
 * activity's word with -er for -ing), where the lexicon has no such word
 * already and the activity is a subject (weight 1 or more, not a modifier).
 */
function agentTerms(terms: readonly Term[]): Term[] {
  const known = new Set(terms.map((t) => t.tokens.join(' ')));
  return terms.flatMap((t) => {
    const [word] = t.tokens;
    if (t.modifier || t.weight < 1 || t.tokens.length !== 1) return [];
    // Who practises a field the lexicon names: "dermatologist" for "dermatology", "physiotherapist" for "physiotherapy".
    if (/(ology|therapy)$/.test(word!)) {
      const practitioner = `${word!.slice(0, -1)}ist`;
      return known.has(practitioner) ? [] : [{ ...t, term: practitioner, tokens: [practitioner] }];
    }
    if (!word!.endsWith('ing') || word!.length < 6) return [];
    const agent = `${word!.slice(0, -3)}er`;
    return known.has(agent) || NOT_AGENTS.has(agent) ? [] : [{ ...t, term: agent, tokens: [agent] }];
  });
}

const TERMS: Term[] = [...LEXICON_TERMS, ...agentTerms(LEXICON_TERMS)].sort((a, b) => b.tokens.length - a.tokens.length);

const TERMS_WITH_AND = TERMS.filter((t) => t.tokens.includes('and'));

/**
 * An activity's verb right after "to" is the activity: "teaches kids to swim" is
 * about swimming, "helps beginners to knit" about knitting. The lexicon's
 * one-word -ing subjects by their verbs (swimm-ing → swim, hik-ing → hike).
 * Only there: elsewhere "box" is not boxing nor "park" parking.
 */
const ACTIVITY_VERBS = new Map<string, Term>();
for (const t of LEXICON_TERMS) {
  const [word] = t.tokens;
  if (t.modifier || t.weight < 1 || t.tokens.length !== 1 || !word!.endsWith('ing') || word!.length < 6) continue;
  const stem = word!.slice(0, -3);
  const verbs = [stem, `${stem}e`, /([^aeiou])\1$/.test(stem) ? stem.slice(0, -1) : ''];
  for (const verb of verbs) if (verb && !ACTIVITY_VERBS.has(verb)) ACTIVITY_VERBS.set(verb, t);
}

const FIRST_TOKEN = new Map<string, Term[]>();
for (const t of TERMS) FIRST_TOKEN.set(t.tokens[0]!, [...(FIRST_TOKEN.get(t.tokens[0]!) ?? []), t]);

interface Found {
  term: Term;
  /** The word positions [start, end) it took in its text. */
  start: number;
  end: number;
}

/** The lexicon's terms in a run of words, each word used by at most one term (the longest that fits), in order. */
function termsInWords(words: readonly string[]): Found[] {
  const found: Found[] = [];
  for (let i = 0; i < words.length;) {
    const hit = FIRST_TOKEN.get(words[i]!)?.find((t) => t.tokens.every((w, k) => words[i + k] === w));
    if (hit) {
      found.push({ term: hit, start: i, end: i + hit.tokens.length });
      i += hit.tokens.length;
    } else i += 1;
  }
  return found;
}

const termsIn = (text: string): Term[] => termsInWords(tokens(text)).map((f) => f.term);

/**
 * Words that say what form an idea takes or who uses it, never what it is
 * about: WordNet is not asked about them ("bot" would be a botfly larva,
 * "platform" a raised floor), and the last fallback reads some of them as
 * software (SOFTWARE_FORMS).
 */
const FORM_WORDS = new Set(
  (
    'app application platform tool bot service marketplace market subscription box kit finder tracker tracking helper assistant ' +
    'generator planner planning builder manager management checker reminder alert delivery booking matching sharing comparison ' +
    'site system solution startup company brand product device club pack plan agency quote review guide software saas api ' +
    'dashboard extension plugin widget network hub directory portal exchange program online people user customer owner buyer ' +
    'seller lover beginner adult friend member everyone anyone way thing idea place local list checklist analysis analyzer ' +
    'simulator monitor report reporting summary partner feed experience session consultation class spot time day week month ' +
    'year service provider startup store shop note usage pickup dropoff collection repair installation cleaning'
  ).split(' '),
);

/** Forms that say an idea is software: what an idea that names no subject is, Google's Computers & Electronics > Software. */
const SOFTWARE_FORMS = new Set([
  'app',
  'application',
  'platform',
  'bot',
  'software',
  'saas',
  'tool',
  'dashboard',
  'extension',
  'plugin',
  'api',
  'widget',
]);
/** Words that say the software is for a workplace: then it is Business & Industrial (Business Operations). */
const WORKPLACE = new Set([
  'team',
  'business',
  'company',
  'startup',
  'employee',
  'staff',
  'b2b',
  'saas',
  'client',
  'workplace',
  'office',
  'sales',
  'meeting',
  'enterprise',
  'agency',
  'standup',
  'coworker',
  'colleague',
  'remote',
]);

/** WordNet's nouns by category (wordnet-categories.ts), read into a map at first use. */
let wordNetNouns: Map<string, Exclude<Category, 'uncategorized'>> | undefined;
function wordNetCategory(word: string): Exclude<Category, 'uncategorized'> | undefined {
  if (!wordNetNouns) {
    wordNetNouns = new Map();
    for (const [category, list] of Object.entries(WORDNET_CATEGORIES))
      for (const noun of list!.split(',')) wordNetNouns.set(noun, category as Exclude<Category, 'uncategorized'>);
  }
  // The words are stemmed ("eyeglasses" → "eyeglasse"): WordNet may list the plural as the lemma.
  return wordNetNouns.get(word) ?? wordNetNouns.get(`${word}s`);
}

/**
 * What a WordNet noun weighs: a word that leans (right about two times in
 * three on the tuning ideas), so an idea filed by WordNet alone stays below
 * FIRM_CONFIDENCE and a research run's step aggregate files it by what Google
 * measured instead.
 */
const WORDNET_WEIGHT = 0.5;

const wordNetTerm = (category: Exclude<Category, 'uncategorized'>, words: string[]): Term => ({
  category,
  term: `${words.join(' ')} (WordNet)`,
  tokens: words,
  weight: WORDNET_WEIGHT,
  modifier: false,
});

/**
 * The idea's nouns the lexicon does not know, filed by WordNet: a two-word
 * compound WordNet lists first ("blood test"), else a single noun. Only words
 * the tagger reads as nouns in the idea's noun phrases are asked (not "finds",
 * "helps"), and never a form word.
 */
function wordNetTermsIn(words: readonly string[], known: readonly Found[], nouns: ReadonlySet<string>): Found[] {
  const taken = new Set(known.flatMap((f) => Array.from({ length: f.end - f.start }, (_, k) => f.start + k)));
  // A letter or two ("m" of /m/0abc, "tv") is an abbreviation, not a noun WordNet should guess at.
  const open = (i: number) => i < words.length && !taken.has(i) && !FORM_WORDS.has(words[i]!) && words[i]!.length > 2;
  const out: Found[] = [];
  for (let i = 0; i < words.length; i++) {
    if (!open(i)) continue;
    const pair =
      open(i + 1) && (nouns.has(words[i]!) || nouns.has(words[i + 1]!)) ? wordNetCategory(`${words[i]} ${words[i + 1]}`) : undefined;
    if (pair) {
      out.push({ term: wordNetTerm(pair, [words[i]!, words[i + 1]!]), start: i, end: i + 2 });
      i += 1;
      continue;
    }
    const single = nouns.has(words[i]!) ? wordNetCategory(words[i]!) : undefined;
    if (single) out.push({ term: wordNetTerm(single, [words[i]!]), start: i, end: i + 1 });
  }
  return out;
}

/** The last resort for an idea that names nothing the lexicon or WordNet knows: its software form. */
function softwareFormIn(words: readonly string[], all: readonly string[]): Found[] {
  const at = words.findLastIndex((w) => SOFTWARE_FORMS.has(w));
  if (at === -1) return [];
  const category = all.some((w) => WORKPLACE.has(w)) ? 'business-industrial' : 'computers-electronics';
  return [
    { term: { category, term: `${words[at]} (software)`, tokens: [words[at]!], weight: 0.5, modifier: false }, start: at, end: at + 1 },
  ];
}

/**
 * The idea's terms by the part they play. The idea is cut at its boundary
 * words ("for", "with", "while", …): before the first is what the idea is,
 * after it who or what it is for. The head is the last subject term of the
 * first part that has one (English puts a compound's head last: "camping
 * gear", "pet food"), passing over a word that only names who delivers it
 * (DELIVERY: "yoga teachers"), together with the subject terms right before
 * it with no other word between ("tabletop miniatures painting", "dog
 * daycare"), so "Marketplace for used motorcycles", whose first part is only a
 * form, is about motorcycles. An idea with no subject term in the lexicon is
 * read again with WordNet's nouns (wordnet-categories.ts), and one with none
 * there either by its software form ("Remote team standup bot").
 */
function ideaTerms(idea: string): Array<[EvidenceSource, Term]> {
  const parts: string[][] = [[]];
  const words = tokens(idea.replace(/\([^)]*\)/g, ' '));
  // "and" inside a lexicon term ("bed and breakfast") joins, not divides.
  const joins = (i: number) => TERMS_WITH_AND.some((t) => t.tokens.every((w, k) => words[i - t.tokens.indexOf('and') + k] === w));
  // The boundary word before each part ("" before the first).
  const before: string[] = [''];
  words.forEach((word, i) => {
    if (BOUNDARIES.has(word) && !(word === 'and' && joins(i))) {
      parts.push([]);
      before.push(word);
    } else parts[parts.length - 1]!.push(word);
  });
  let found = parts.map(termsInWords);
  // The verb after "to" names the activity (ACTIVITY_VERBS), where the lexicon found nothing at that word.
  found = found.map((terms, i) => {
    const activity = i > 0 && before[i] === 'to' && !terms.some((f) => f.start === 0) ? ACTIVITY_VERBS.get(parts[i]![0] ?? '') : undefined;
    return activity ? [{ term: activity, start: 0, end: 1 }, ...terms] : terms;
  });
  // A platform brand is the model of an "X for Y" idea when it ends the first part and "for" follows ("Shopify for
  // restaurants"); anywhere else the idea is software for that platform, and the brand is a subject.
  const asModel = (f: Found, part: number) => part === 0 && f.end === parts[0]!.length && words[f.end] === 'for';
  const platforms = new Set(
    found.flatMap((terms, part) => terms.filter((f) => PLATFORM_HOSTS.has(f.term.term) && !asModel(f, part)).map((f) => f.term.term)),
  );
  const subject = (f: Found) => !f.term.modifier && (!TECHNIQUES.has(f.term.term) || platforms.has(f.term.term));
  // A part whose only subjects are delivery words ("insulin price comparison") is read with WordNet too.
  const firstWithSubject = found.findIndex((terms) => terms.some((f) => subject(f) && !DELIVERY.has(f.term.term)));
  if (firstWithSubject !== 0) {
    // WordNet reads the parts before the first one the lexicon knows a subject in (all of them when none):
    // "App that identifies mushrooms from photos" is about mushrooms, not photos.
    const nouns = new Set(
      nounChunks(idea)
        .flatMap((c) => c.tokens)
        .filter((t) => t.role === 'noun')
        .flatMap((t) => tokens(t.word)),
    );
    const byOrder = (a: Found, b: Found) => a.start - b.start;
    const before = firstWithSubject === -1 ? parts.length : firstWithSubject;
    const fromWordNet = parts.map((words, i) => (i < before ? wordNetTermsIn(words, found[i]!, nouns) : []));
    if (fromWordNet.some((terms) => terms.length > 0)) found = found.map((terms, i) => [...terms, ...fromWordNet[i]!].sort(byOrder));
    else if (!found.some((terms) => terms.some((f) => !f.term.modifier)))
      found = found.map((terms, i) => [...terms, ...softwareFormIn(parts[i]!, parts.flat())].sort(byOrder));
  }
  const technique = (f: Found) => !f.term.modifier;
  const about = found.some((terms) => terms.some(subject)) ? subject : technique;
  const main = Math.max(
    0,
    found.findIndex((terms) => terms.some(about)),
  );
  const subjects = found[main]!.filter(about);
  const heads = subjects.filter((f) => !DELIVERY.has(f.term.term));
  let head = (heads.length > 0 ? heads : subjects).at(-1);
  // A head that only names people served ("teaches kids to swim") or who delivers ("Drone inspection service for
  // solar farms") gives way to the subject the first later part names: that is what the idea is about.
  if (head && (PEOPLE.has(head.term.term) || (DELIVERY.has(head.term.term) && !TOOLS.has(head.term.term)))) {
    const later = found
      .slice(main + 1)
      .map((terms) => terms.filter((f) => about(f) && !PEOPLE.has(f.term.term) && !DELIVERY.has(f.term.term)))
      .find((terms) => terms.length > 0);
    if (later) head = later.at(-1);
  }
  const compound = new Set<Found>();
  for (let k = subjects.indexOf(head!) - 1; k >= 0 && subjects[k]!.end === subjects[k + 1]!.start; k--) compound.add(subjects[k]!);
  // Made for animals, it is a pet product, whatever it is ("Fitness tracker for dogs"): the animal is the head.
  // So is a product that names the animal it serves in the same part ("Smart collar that monitors a cat's health",
  // "Dog treat bakery"), unless the animal is only allowed in ("dog-friendly hotel finder").
  const animal = (f: Found) => f.term.category === 'pets-animals' && f.term.weight >= 2 && !f.term.modifier;
  const friendly = (f: Found, part: number) => parts[part]![f.end] === 'friendly';
  const forAnimals =
    found
      .slice(main + 1)
      .flat()
      .find(animal) ?? found[main]!.find((f) => animal(f) && f !== head && !friendly(f, main));
  if (forAnimals && head && head.term.category !== 'pets-animals') {
    compound.add(head);
    head = forAnimals;
  }
  const role = (f: Found, part: number): EvidenceSource =>
    f === head ? 'head' : compound.has(f) ? 'compound' : part <= main || f.term.modifier ? 'idea' : 'audience';
  return found.flatMap((terms, i) => terms.map((f): [EvidenceSource, Term] => [role(f, i), f.term]));
}

/** The idea's own words, in whatever part they play: one kind of evidence, not measured by Google. */
const IDEA_SOURCES: ReadonlySet<EvidenceSource> = new Set(['head', 'compound', 'idea', 'audience']);

const round2 = (x: number) => Math.round(x * 100) / 100;

/**
 * The category of an idea in Google's top-level tree, from the evidence its
 * research measured. Each lexicon term found counts once per kind of evidence
 * (its weight × EVIDENCE_WEIGHTS of where it was found); a category that only
 * modifiers point to scores nothing; the category with the most points wins; a
 * tie goes to the category with more measured (non-idea) points, then to the
 * first in CATEGORIES. No term found: `uncategorized`.
 */
export function classifyCategory(e: CategoryEvidence): CategoryChoice {
  const found: Array<[EvidenceSource, Term]> = [
    ...ideaTerms(e.idea),
    // The phrases are the idea's own words: they add only terms the idea did not already have.
    ...e.phrases.flatMap((p) => termsIn(p).map((t): [EvidenceSource, Term] => ['idea', t])),
    ...e.topics.flatMap((t) => termsIn(t.title).map((term): [EvidenceSource, Term] => ['topic', term])),
    ...e.topics.flatMap((t) => termsIn(t.type).map((term): [EvidenceSource, Term] => ['topic-type', term])),
    ...(e.relatedQueries ?? []).flatMap((q) => termsIn(q).map((t): [EvidenceSource, Term] => ['related-query', t])),
    ...(e.relatedTopics ?? []).flatMap((r) => termsIn(r.label).map((t): [EvidenceSource, Term] => ['related-topic', t])),
    ...(e.relatedTopics ?? []).flatMap((r) => termsIn(r.type ?? '').map((t): [EvidenceSource, Term] => ['related-topic-type', t])),
    ...(e.freebaseTypes ?? []).flatMap((f) => termsIn(f).map((t): [EvidenceSource, Term] => ['freebase', t])),
  ];
  // One term counts once per kind of evidence: twenty related queries saying "dog" are one "dog";
  // the idea's words (head, idea, audience) are one kind.
  const counted = new Map<string, { term: Term; source: EvidenceSource; points: number }>();
  for (const [source, term] of found) {
    const kind = IDEA_SOURCES.has(source) ? 'idea' : source;
    const key = `${kind}\u0000${term.category}\u0000${term.term}`;
    if (!counted.has(key)) counted.set(key, { term, source, points: term.weight * EVIDENCE_WEIGHTS[source] });
  }
  const decided = new Set([...counted.values()].filter((c) => !c.term.modifier).map((c) => c.term.category));
  const scores: Partial<Record<Category, number>> = {};
  const measured: Partial<Record<Category, number>> = {};
  for (const { term, source, points } of counted.values()) {
    if (!decided.has(term.category)) continue;
    scores[term.category] = (scores[term.category] ?? 0) + points;
    if (!IDEA_SOURCES.has(source)) measured[term.category] = (measured[term.category] ?? 0) + points;
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

/**
 * Below this confidence classify_category's category is a guess (an idea word or two, no
 * head term, or a close second), and step aggregate files the insight by the related
 * lists instead.
 */
export const FIRM_CONFIDENCE = 0.5;

/**
 * The insight's category: classify_category's choice, made from the idea's own meaning,
 * unless it was `uncategorized` or below FIRM_CONFIDENCE; then the choice made
 * with the related lists (`measured`, asked for only then). The related lists
 * are searches around the primary phrase, so they can drift from the idea
 * ("vegan pet food" → "vegan food"); they fill a gap, they do not overrule.
 */
export function insightCategory(first: CategoryChoice, measured: () => CategoryChoice): CategoryChoice {
  return first.category !== 'uncategorized' && first.confidence >= FIRM_CONFIDENCE ? first : measured();
}
