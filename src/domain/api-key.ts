// API keys: `sik_` + 30 random base62 characters + a 6-character base62
// CRC32 checksum of the random part. The prefix makes a leaked key easy to
// recognise (secret scanners), the checksum lets us reject typos and garbage
// without touching the database. Keys carry ~178 bits of entropy, so a fast
// SHA-256 is the right hash: slow password hashes only help low-entropy secrets.
import { createHash, randomInt } from 'node:crypto';
import { crc32 } from 'node:zlib';

export const API_KEY_PREFIX = 'sik_';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_LENGTH = 30;
const CHECKSUM_LENGTH = 6;
const KEY_PATTERN = new RegExp(`^${API_KEY_PREFIX}[0-9A-Za-z]{${RANDOM_LENGTH + CHECKSUM_LENGTH}}$`);

function base62(value: number, width: number): string {
  let out = '';
  let rest = value;
  for (let i = 0; i < width; i += 1) {
    out = BASE62[rest % 62] + out;
    rest = Math.floor(rest / 62);
  }
  return out;
}

function checksum(randomPart: string): string {
  return base62(crc32(randomPart), CHECKSUM_LENGTH);
}

export function generateApiKey(): string {
  let randomPart = '';
  for (let i = 0; i < RANDOM_LENGTH; i += 1) randomPart += BASE62[randomInt(62)];
  return `${API_KEY_PREFIX}${randomPart}${checksum(randomPart)}`;
}

/** Why a string is not an API key by its form (its prefix, length and characters, then its checksum), or null when it is well formed. */
export function apiKeyFormProblem(key: string): string | null {
  if (!key.startsWith(API_KEY_PREFIX)) return `keys start with ${API_KEY_PREFIX}`;
  if (!KEY_PATTERN.test(key)) return `a key is ${API_KEY_PREFIX} and ${RANDOM_LENGTH + CHECKSUM_LENGTH} letters and digits`;
  if (!isWellFormedApiKey(key)) return 'its checksum does not match: the key was mistyped or cut short; copy it again';
  return null;
}

/** Shape and checksum only: says nothing about whether the key exists. */
export function isWellFormedApiKey(key: string): boolean {
  if (!KEY_PATTERN.test(key)) return false;
  const body = key.slice(API_KEY_PREFIX.length);
  return checksum(body.slice(0, RANDOM_LENGTH)) === body.slice(RANDOM_LENGTH);
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** What may be shown after creation: enough to tell keys apart, useless to an attacker. */
export function displayPrefix(key: string): string {
  return key.slice(0, API_KEY_PREFIX.length + 6);
}

/**
 * What a key may do. `insights:read` reads the API's insights, research,
 * catalog and usage; `webhooks:write` manages the account's own webhook
 * subscriptions and may read them too (there is no separate read scope: the
 * list of subscriptions is only useful to whoever manages them);
 * `research:write` starts and cancels the account's research runs (each spends
 * its daily research allowance); reading runs needs only `insights:read`.
 */
export const API_KEY_SCOPES = ['insights:read', 'webhooks:write', 'research:write'] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];
/** A key created without a scope named, and every key made before scopes existed. */
export const DEFAULT_API_KEY_SCOPES: readonly ApiKeyScope[] = ['insights:read'];

export function isApiKeyScope(value: string): value is ApiKeyScope {
  return (API_KEY_SCOPES as readonly string[]).includes(value);
}

/** Whether a key holding `scopes` may do what `needed` allows. */
export function hasScope(scopes: readonly string[], needed: ApiKeyScope): boolean {
  return scopes.includes(needed);
}
