import { randomBytes } from 'node:crypto';

/** Prefixes make an id's kind obvious in logs, URLs and support tickets. */
export const ID_PREFIXES = {
  insight: 'ins',
  apiKey: 'key',
  account: 'acc',
  run: 'run',
  subscription: 'sub',
  event: 'evt',
  delivery: 'dlv',
  member: 'mem',
  person: 'per',
  invitation: 'inv',
} as const;
export type IdKind = keyof typeof ID_PREFIXES;

// Crockford base32, lower case: no ambiguous characters, URL-safe.
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
const BODY_LENGTH = 20; // 100 bits of randomness

export function newId(kind: IdKind): string {
  const bytes = randomBytes(BODY_LENGTH);
  let body = '';
  for (const byte of bytes) body += ALPHABET[byte & 31];
  return `${ID_PREFIXES[kind]}_${body}`;
}

const ID_PATTERN = new RegExp(`^[a-z]+_[${ALPHABET}]{${BODY_LENGTH}}$`);

/** True when `id` is shaped like an id of that kind (it may still not exist). */
export function isId(kind: IdKind, id: string): boolean {
  return id.startsWith(`${ID_PREFIXES[kind]}_`) && ID_PATTERN.test(id);
}
