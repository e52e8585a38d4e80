// Egress proxy URLs are parsed once, strictly: before, a URL whose password had a
// bad %-escape was accepted by routesFrom and then failed every request through it
// (the credentials were decoded on each CONNECT).
import { describe, expect, it } from 'vitest';
import { parseProxyUrl, ProxyUrlError } from '../../src/domain/proxy-url.js';
import { routesFrom } from '../../src/providers/google/egress/routes.js';

describe('egress proxy URLs', () => {
  it('a bad %-escape in the credentials is refused at once, without repeating them', () => {
    for (const raw of ['http://user:Qx7%zzTk@10.0.0.5:3128', 'http://Us%E0%A4er:pw@10.0.0.5:3128']) {
      const error = (() => {
        try {
          routesFrom([raw]);
        } catch (e) {
          return e;
        }
        return undefined;
      })();
      expect(error, raw).toBeInstanceOf(ProxyUrlError);
      expect(String(error)).toMatch(/bad %-escape/);
      expect(String(error)).not.toMatch(/Qx7|Us%E0|pw/);
      expect((error as ProxyUrlError).shown).toBe('http://10.0.0.5:3128');
    }
  });

  it('decodes the credentials once, for the Proxy-Authorization header', () => {
    const [route] = routesFrom(['http://us%40er:p%2Fw%3Ax@10.0.0.5:3128']);
    expect(route!.name).toBe('10.0.0.5:3128');
    expect(Buffer.from(route!.proxyAuthorization!.replace(/^Basic /, ''), 'base64').toString()).toBe('us@er:p/w:x');
    expect(routesFrom(['http://10.0.0.5:3128'])[0]!.proxyAuthorization).toBeUndefined();
  });

  it.each([
    ['https://10.0.0.5:3128', /must use http:\/\//],
    ['http://10.0.0.5:3128/path', /no path, query or fragment/],
    ['http://10.0.0.5:3128/?q=1', /no path, query or fragment/],
    ['http://user:pa/ss@10.0.0.5:3128', /is not a URL/],
  ])('%s is refused', (raw, reason) => {
    expect(() => parseProxyUrl(raw)).toThrow(reason);
  });
});
