// What the request log writes of a URL: no invitation token, API key or webhook secret, however the
// client spelled it (an outside review of 2026-11-28 found `?api_key=sik_…` logged in clear).
import { describe, expect, it } from 'vitest';
import { loggedUrl } from '../../src/http/request-log.js';
import { generateApiKey } from '../../src/domain/api-key.js';

describe('loggedUrl', () => {
  const key = generateApiKey();
  it('drops an API key or a webhook secret from the query string, plain or percent-encoded', () => {
    for (const url of [
      `/api/insights?api_key=${key}`,
      `/api/insights?key=${key}&limit=5`,
      `/api/insights?api_key=%73ik_${key.slice(4)}`,
      `/api/webhooks?secret=whsec_c2VjcmV0IHNlY3JldCBzZWNyZXQ=`,
    ]) {
      const logged = loggedUrl(url);
      expect(logged).not.toContain(key.slice(4));
      expect(logged).not.toContain('c2VjcmV0');
      expect(logged).toMatch(/(sik|whsec)_\[redacted\]/);
    }
  });
  it('keeps an ordinary URL as it came, and still hides an invitation token', () => {
    expect(loggedUrl('/api/insights?limit=5&category=sports')).toBe('/api/insights?limit=5&category=sports');
    expect(loggedUrl('/account/invite/abcdefABCDEF0123456789')).toBe('/account/invite/[token]');
  });
});
