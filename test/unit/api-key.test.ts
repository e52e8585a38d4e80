import { describe, expect, it } from 'vitest';
import { API_KEY_PREFIX, displayPrefix, generateApiKey, hashApiKey, isWellFormedApiKey } from '../../src/domain/api-key.js';

describe('API keys', () => {
  it('carry the recognisable prefix and pass their own checksum', () => {
    for (let i = 0; i < 200; i += 1) {
      const key = generateApiKey();
      expect(key.startsWith(API_KEY_PREFIX)).toBe(true);
      expect(key).toHaveLength(40);
      expect(isWellFormedApiKey(key)).toBe(true);
    }
  });

  it('reject a single changed character through the checksum', () => {
    const key = generateApiKey();
    let rejected = 0;
    for (let i = API_KEY_PREFIX.length; i < key.length; i += 1) {
      const replacement = key[i] === 'a' ? 'b' : 'a';
      const typo = key.slice(0, i) + replacement + key.slice(i + 1);
      if (!isWellFormedApiKey(typo)) rejected += 1;
    }
    expect(rejected).toBe(key.length - API_KEY_PREFIX.length);
  });

  it('reject other shapes', () => {
    for (const bad of ['', 'sik_', 'ghp_abc', `${generateApiKey()}x`, generateApiKey().replace('sik_', 'sk_')]) {
      expect(isWellFormedApiKey(bad)).toBe(false);
    }
  });

  it('hash to a stable digest that does not contain the key, and display only a short prefix', () => {
    const key = generateApiKey();
    expect(hashApiKey(key)).toBe(hashApiKey(key));
    expect(hashApiKey(key)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashApiKey(key)).not.toContain(key.slice(4, 12));
    expect(displayPrefix(key)).toBe(key.slice(0, 10));
  });
});
