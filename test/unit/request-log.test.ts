// What the request log writes of a URL: no invitation token, API key or webhook secret, however the
// client spelled it (an outside review of 2026-11-28 found `?api_key=sik_…` logged in clear).
import { describe, expect, it } from 'vitest';
import { loggedText, loggedUrl } from '../../src/http/request-log.js';
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
      expect(logged).toMatch(/=\[redacted\]/);
    }
    // A key or a secret in the path, or alone as a query's name.
    expect(loggedUrl(`/api/keys/${key}`)).toBe('/api/keys/sik_[redacted]');
    expect(loggedUrl(`/api/insights?${key}`)).toBe('/api/insights?[redacted]');
  });
  it("keeps a URL's path and its query's names, never a query's values, and still hides an invitation token", () => {
    expect(loggedUrl('/api/insights?limit=5&category=sports&q=')).toBe('/api/insights?limit=[redacted]&category=[redacted]&q=');
    expect(loggedUrl('/api/insights?q=private%20idea+words&flag')).toBe('/api/insights?q=[redacted]&flag');
    expect(loggedUrl('/api/insights')).toBe('/api/insights');
    expect(loggedUrl('/account/invite/abcdefABCDEF0123456789')).toBe('/account/invite/[token]');
    expect(loggedUrl('/account/invite/abcdef?next=x')).toBe('/account/invite/[token]?next=[redacted]');
  });
  it('keeps query values out of the URLs an error message quotes', () => {
    expect(loggedText('Reply was already sent in the "/api/insights?q=private idea" route')).not.toContain('private');
    expect(loggedText('Reply was already sent in the "/api/insights?q=secretword" route')).toBe(
      'Reply was already sent in the "/api/insights?q=[redacted]" route',
    );
  });
});
