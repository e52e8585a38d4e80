// Responses of the read-only API are precomputed results, so identical
// requests get identical bodies until the pipeline writes. Entries are keyed
// by the read-model version (see quota.store.ts), so a write invalidates every
// process's cache at once without any message passing.
import { createHash } from 'node:crypto';

export interface CachedResponse {
  /** Encoded once: a hit writes these bytes without re-encoding the JSON. */
  body: Buffer;
  etag: string;
  statusCode: number;
  contentType: string;
}

export class ResponseCache {
  private readonly entries = new Map<string, { value: CachedResponse; expires: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 20_000,
  ) {}

  get(version: string, url: string): CachedResponse | undefined {
    if (this.ttlMs === 0) return undefined;
    const key = `${version}\u0000${url}`;
    const hit = this.entries.get(key);
    if (!hit) return undefined;
    if (hit.expires <= Date.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return hit.value;
  }

  set(version: string, url: string, value: CachedResponse): void {
    if (this.ttlMs === 0) return;
    // Map keeps insertion order: dropping the first key evicts the oldest entry.
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(`${version}\u0000${url}`, { value, expires: Date.now() + this.ttlMs });
  }
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
