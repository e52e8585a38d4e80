import type { Category } from '../catalog.js';

// Keyword rules: transparent and testable. The matched terms are the evidence.
const RULES: Array<[Category, string[]]> = [
  ['ai-ml', ['ai', 'gpt', 'llm', 'chatbot', 'machine learning', 'neural', 'artificial intelligence', 'copilot', 'agent']],
  ['devtools', ['api', 'developer', 'code', 'coding', 'github', 'devops', 'database', 'sdk', 'debug', 'deploy', 'programming']],
  ['fintech', ['bank', 'payment', 'invoice', 'finance', 'budget', 'loan', 'crypto', 'tax', 'accounting', 'invest', 'insurance', 'payroll']],
  [
    'health',
    ['health', 'fitness', 'diet', 'diabetes', 'medical', 'doctor', 'therapy', 'mental', 'sleep', 'workout', 'nutrition', 'clinic'],
  ],
  ['education', ['learn', 'course', 'tutor', 'school', 'student', 'teacher', 'exam', 'language learning', 'education', 'homework']],
  ['ecommerce', ['shop', 'store', 'ecommerce', 'marketplace', 'resale', 'dropshipping', 'retail', 'shopify']],
  ['marketing', ['marketing', 'seo', 'ads', 'social media', 'newsletter', 'crm', 'leads', 'sales', 'influencer']],
  ['productivity', ['productivity', 'calendar', 'todo', 'task', 'notes', 'scheduling', 'meeting', 'project management', 'workflow']],
  ['food-drink', ['food', 'meal', 'recipe', 'restaurant', 'coffee', 'pizza', 'bagel', 'cooking', 'grocery', 'bakery', 'vegan']],
  ['travel', ['travel', 'flight', 'hotel', 'trip', 'booking', 'car rental', 'ride', 'commute', 'parking']],
  ['home-living', ['home', 'furniture', 'cleaning', 'garden', 'pet', 'dog', 'cat', 'plumbing', 'repair', 'parenting', 'baby']],
  ['entertainment', ['music', 'video', 'movie', 'podcast', 'game', 'gaming', 'streaming', 'book', 'event', 'concert']],
  ['climate', ['solar', 'climate', 'carbon', 'energy', 'ev', 'electric vehicle', 'recycling', 'sustainable', 'heat pump']],
  ['security', ['security', 'password', 'privacy', 'vpn', 'fraud', 'identity', 'encryption', 'backup']],
  ['real-estate', ['rent', 'real estate', 'mortgage', 'apartment', 'landlord', 'property', 'housing', 'tenant']],
];

export interface CategoryChoice {
  category: Category;
  matched: string[];
  scores: Partial<Record<Category, number>>;
}

/** The category whose terms occur most (whole words) in the texts; `uncategorized` when none does. */
export function classifyCategory(texts: readonly string[]): CategoryChoice {
  const haystack = ` ${texts
    .join(' ')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')} `;
  let best: CategoryChoice = { category: 'uncategorized', matched: [], scores: {} };
  let bestScore = 0;
  const scores: Partial<Record<Category, number>> = {};
  for (const [category, terms] of RULES) {
    const matched = terms.filter((t) => haystack.includes(` ${t} `));
    if (matched.length === 0) continue;
    scores[category] = matched.length;
    if (matched.length > bestScore) {
      bestScore = matched.length;
      best = { category, matched, scores };
    }
  }
  return { ...best, scores };
}
