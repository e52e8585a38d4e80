// What Trends' autocomplete says about an idea (step autocomplete_phrases asks it anyway): the
// topics Google knows under the phrase, each with a type ("Dish", "Company",
// "Mobile app" …). Their number and variety speak to breadth; types that name
// a business (a company, a brand, an app) to competition.

/** Topic types that name a business already serving the searches (matched as whole words). */
export const BRAND_TOPIC_TYPES = [
  'company',
  'corporation',
  'business',
  'brand',
  'chain',
  'retailer',
  'manufacturer',
  'software',
  'website',
  'app',
  'application',
  'platform',
  'marketplace',
  'startup',
] as const;

/** Autocomplete answers at most this many topics (the plan keeps five). */
export const AUTOCOMPLETE_TOPICS_MAX = 5;

export interface TopicSignals {
  topics: number;
  /** Distinct types, in the order Google listed them. */
  types: string[];
  brand_topics: number;
  brand_examples: string[];
}

const isBrandType = (type: string) => {
  const words = new Set(type.toLowerCase().split(/[^\p{L}\p{N}]+/u));
  return BRAND_TOPIC_TYPES.some((t) => words.has(t));
};

export function topicSignals(topics: ReadonlyArray<{ title: string; type: string }>): TopicSignals {
  const types = [...new Set(topics.map((t) => t.type.trim()).filter(Boolean))];
  const brands = topics.filter((t) => isBrandType(t.type));
  return {
    topics: topics.length,
    types,
    brand_topics: brands.length,
    brand_examples: brands.slice(0, 5).map((t) => `${t.title} (${t.type})`),
  };
}
