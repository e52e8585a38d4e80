// Responses of the read-only API are precomputed results, so identical
// requests get identical bodies until the pipeline writes. Entries carry the
// read-model version they were made under (see read-model-version.ts): a write
// bumps the version, and every older entry is dropped at once.
//
// Bounded in bytes, not entries: a hostile client asking for 20,000 distinct
// pages cannot grow the process past the budget, and the coldest pages go
// first. Keys are the route and its parsed, validated parameters, so spellings
// of one request (min_score=0.1 and min_score=0.10, defaults left out or
// given) share one entry.
import { createHash } from 'node:crypto';
import { Lru } from '../domain/lru.js';

export interface CachedResponse {
  /** Encoded once: a hit writes these bytes without re-encoding the JSON. */
  body: Buffer;
  etag: string;
  statusCode: number;
  contentType: string;
  /** Headers that go with the body (a list page's Link to the next page). */
  headers?: Readonly<Record<string, string>>;
}

interface Entry {
  version: number;
  expires: number;
  response: CachedResponse;
}

/** What an entry costs beyond its key and body (the objects around them), roughly. */
const ENTRY_OVERHEAD_BYTES = 300;

export const DEFAULT_CACHE_MAX_BYTES = 64 * 1024 * 1024;

export class ResponseCache {
  private readonly entries: Lru<string, Entry>;
  private newest = 0;

  constructor(
    private readonly ttlMs: number,
    readonly maxBytes = DEFAULT_CACHE_MAX_BYTES,
  ) {
    this.entries = new Lru(maxBytes, (key, entry) => key.length * 2 + entry.response.body.length + ENTRY_OVERHEAD_BYTES);
  }

  /** Bytes held now (never above maxBytes). */
  get bytes(): number {
    return this.entries.cost;
  }

  get size(): number {
    return this.entries.size;
  }

  get(version: string, key: string): CachedResponse | undefined {
    if (this.ttlMs === 0) return undefined;
    this.observe(version);
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.version !== Number(version) || entry.expires <= Date.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.response;
  }

  set(version: string, key: string, response: CachedResponse): void {
    if (this.ttlMs === 0) return;
    this.observe(version);
    // A response computed under an older version (a write landed meanwhile) is stale already.
    if (Number(version) < this.newest) return;
    this.entries.set(key, { version: Number(version), expires: Date.now() + this.ttlMs, response });
  }

  /** Versions only grow: the first request under a newer one drops everything older. */
  private observe(version: string): void {
    const v = Number(version);
    if (!(v > this.newest)) return;
    this.newest = v;
    this.entries.prune((_, entry) => entry.version < v);
  }
}

/** The cache key of a validated request: route, then its parameters in a fixed order. */
export function canonicalKey(route: string, params: unknown, query: unknown): string {
  return `${route}\u0000${stableJson(params)}\u0000${stableJson(query)}`;
}

function stableJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? '';
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(',')}}`;
}

export function etagOf(body: string): string {
  return `"${createHash('sha1').update(body).digest('base64url')}"`;
}

/** RFC 9110 If-None-Match: a list of entity tags, or "*"; weak comparison. */
export function matchesIfNoneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  const bare = etag.replace(/^W\//, '');
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === bare);
}
