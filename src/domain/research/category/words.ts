// The words that tell an idea's parts apart: who delivers it, who it is for, where it is done, what form
// it takes, and where what it is ends and whom it is for begins.

/**
 * Words that name who or what delivers the subject rather than the subject:
 * "yoga teachers", "retirement planning calculator", "dog training video
 * courses", "board game rental library". Unlike a modifier they decide when
 * the idea names nothing else ("Tutoring marketplace" is Jobs & Education),
 * but when the same part of the idea names a subject, the subject is the head.
 */
export const DELIVERY = new Set([
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
export const TOOLS = new Set(['calculator', 'converter', 'price comparison']);

/**
 * Words that name people an idea serves, not what it is about: "App that
 * teaches kids to swim" is about swimming. As the head of the idea's first
 * part they give way to a subject named after a boundary word; alone they
 * decide ("Babysitter matching for parents" stays with babysitters: a person
 * who delivers is no audience).
 */
export const PEOPLE = new Set([
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
export const TECHNIQUES = new Set([
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
export const PLATFORM_HOSTS = new Set([
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
export const BOUNDARIES = new Set([
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

/**
 * Words that say what form an idea takes or who uses it, never what it is
 * about: WordNet is not asked about them ("bot" would be a botfly larva,
 * "platform" a raised floor), and the last fallback reads some of them as
 * software (SOFTWARE_FORMS).
 */
export const FORM_WORDS = new Set(
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
export const SOFTWARE_FORMS = new Set([
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
export const WORKPLACE = new Set([
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
