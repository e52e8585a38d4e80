// The words the primary phrase's rules and its ranker read as kinds: what names a kind of business, a
// form a product comes in, a modifier that says only where or at what price, a verb that says only that
// the product acts. Short lists, as no tagger or WordNet relation tells these apart (docs/research.md).

/** Nouns that name the kind of business, not its subject: they end a phrase and weigh nothing. */
export const GENERIC = new Set(
  'app apps application applications platform platforms service services tool tools startup saas b2b b2c d2c p2p website websites site marketplace marketplaces solution solutions system company business extension extensions plugin plugins add-on bot bots browser'.split(
    ' ',
  ),
);
/**
 * Nouns that say in what form a product comes, not what it is about: at the
 * end of the product's phrase they are not its head ("padel court bookings",
 * "mobile dog grooming van": the subject is "padel court", "dog grooming"),
 * and a phrase of nothing else is not the product ("subscription box for …").
 * They stay in the candidates; only the subject is read past them.
 */
export const FORMAT = new Set(
  'subscription subscriptions box boxes membership kit kits van vans booking bookings reminder reminders checklist tracker checker finder monitor monitors comparison help delivery installation installations quote quotes consultation consultations coaching chatbot store ordering tour tours course courses builder generator brand brands'.split(
    ' ',
  ),
);

/** Modifiers that say where, when or at what price a product comes, not which product: a search leaves them out. */
export const CHANNEL_MODIFIERS = new Set(
  'local online mobile virtual digital cheap affordable best new other free custom personalized premium'.split(' '),
);
/**
 * Modifiers that praise or place a product without saying which product it is ("easy", "smart" when not
 * the thing itself): a phrase that keeps them is searched less as it says less. "personalized" names a
 * kind of product ("personalized vitamins"), so it is not among them, though it is a channel word above.
 */
export const GENERIC_MODIFIERS: ReadonlySet<string> = new Set([
  ...[...CHANNEL_MODIFIERS].filter((w) => w !== 'personalized'),
  ...'small easy smart simple quick fast better good great top modern old professional convenient on-demand'.split(' '),
  // When and how it comes, not which product: a time ("same-day", "last-minute", "weekly") or a manner ("automated", "instant").
  ...'same-day next-day last-minute instant automated automatic weekly monthly daily hourly nearby remote home at-home in-home'.split(' '),
]);
/**
 * "AI" before a noun says which kind ("AI bookkeeping"); alone ("an AI that writes …") it is the vehicle, not the
 * subject, as "software" ("Software for dentists to send appointment reminders") and "way" ("An easier way to file
 * small claims") are when they stand alone.
 */
export const TRANSPARENT_ALONE: ReadonlySet<string> = new Set(['ai', 'software', 'way']);

/**
 * Verbs that say nothing of the need, only that the product does something: their act is no search
 * ("finds padel court bookings", "helps freelancers", "connects homeowners with plumbers").
 */
export const LIGHT_VERBS = new Set(
  'be have do get make take give let help find use see know want need go come tell show ask try keep turn put bring send remind connect match meet join enjoy like love choose pick discover start open launch run allow enable offer provide answer access say become automate simplify streamline handle improve optimize power support replace base manage'.split(
    ' ',
  ),
);
/**
 * Verbs by which a customer acquires the thing they name ("renting camping gear", "order wholesale
 * produce"): the thing is the product, and the act ("gear rental") follows it. With a particle the
 * one who offers it acts ("renting out your car"), and the act is the service ("car rental").
 */
export const ACQUIRING_VERBS: ReadonlySet<string> = new Set('rent hire buy order book borrow purchase sell lend shop'.split(' '));
/** Verbs whose object is what the product makes ("writes product descriptions", "prints photo books"): the object first too. */
export const MAKING_VERBS = new Set('write generate create build design make print draw paint bake cook produce craft compose'.split(' '));
/** Light verbs that still name a tool by their agent noun ("coupon finder", "quiz maker", "pill reminder"). */
export const AGENT_LIGHT_VERBS: ReadonlySet<string> = new Set(['find', 'make', 'remind']);
/**
 * The agent noun of a verb, by English spelling ("track": tracker, "make": maker, "plan": planner, "translate":
 * translator, "copy": copier); a verb ending as one names its agent itself ("monitor", "filter").
 */
export function agentNoun(verb: string): string {
  if (/(er|or)$/.test(verb)) return verb;
  if (/ate$/.test(verb)) return `${verb.slice(0, -1)}or`;
  // "collect", "detect", "inspect": collector, detector, inspector.
  if (/ct$/.test(verb)) return `${verb}or`;
  if (/e$/.test(verb)) return `${verb}r`;
  if (/[^aeiou]y$/.test(verb)) return `${verb.slice(0, -1)}ier`;
  if (/^[^aeiou]*[aeiou][bdgklmnprt]$/.test(verb)) return `${verb}${verb.at(-1)}er`;
  return `${verb}er`;
}
