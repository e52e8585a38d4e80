import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

describe('config', () => {
  it('has working defaults with an empty environment', () => {
    const config = loadConfig({});
    expect(config.databaseUrl).toBeUndefined();
    expect(config.redisUrl).toBeUndefined();
    expect(config.host).toBe('127.0.0.1');
    expect(config.port).toBe(3000);
    expect(config.logLevel).toBe('info');
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('reports every bad variable in one error', () => {
    try {
      loadConfig({ PORT: 'eighty', DATABASE_URL: 'mysql://x', LOG_LEVEL: 'loud', REDIS_URL: 'not a url' });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      const { problems } = error as ConfigError;
      expect(problems).toHaveLength(4);
      expect((error as Error).message).toMatch(/PORT/);
      expect((error as Error).message).toMatch(/DATABASE_URL/);
      expect((error as Error).message).toMatch(/LOG_LEVEL/);
      expect((error as Error).message).toMatch(/REDIS_URL/);
    }
  });

  it('refuses at start-up every value that would fail later, naming the variable', () => {
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{ WEBHOOK_ALLOWED_CIDRS: '10.0.0.0/99' }, /WEBHOOK_ALLOWED_CIDRS: "10.0.0.0\/99"/],
      [{ WEBHOOK_ALLOWED_CIDRS: '10.0.0.0/8,fd00::/129' }, /WEBHOOK_ALLOWED_CIDRS: "fd00::\/129"/],
      [{ WEBHOOK_ALLOWED_CIDRS: 'example.com/8' }, /WEBHOOK_ALLOWED_CIDRS/],
      [{ REFRESH_CRON: '61 * * * *' }, /REFRESH_CRON/],
      [{ DISCOVERY_CRON: '0 25 * * *' }, /DISCOVERY_CRON/],
      [{ PUBLIC_BASE_URL: 'ftp://x' }, /PUBLIC_BASE_URL/],
      [{ PUBLIC_BASE_URL: 'not a url' }, /PUBLIC_BASE_URL/],
      [{ DISCOVERY_GEOS: 'US,United Kingdom' }, /DISCOVERY_GEOS/],
      [{ TRENDS_GEO: 'usa' }, /TRENDS_GEO/],
      [{ HTTP_REQUEST_TIMEOUT_MS: '5000', HTTP_HEADERS_TIMEOUT_MS: '9000' }, /HTTP_HEADERS_TIMEOUT_MS/],
      [{ WEBHOOK_TIMEOUT_MS: '0' }, /WEBHOOK_TIMEOUT_MS/],
      [{ TRENDS_PROXY_URLS: 'http://10.0.0.5:3128,socks5://10.0.0.6:1080' }, /TRENDS_PROXY_URLS: "socks5:\/\/10.0.0.6:1080" is not an HTTP CONNECT proxy URL/],
      [{ TRENDS_PROXY_URLS: 'http://user:secret@' }, /TRENDS_PROXY_URLS: "http:\/\/\*\*\*@"/],
      [{ TRENDS_PROXY_URLS: 'http://10.0.0.5:3128,http://10.0.0.5:3128' }, /same proxy twice/],
      [{ TRENDS_REQUEST_PLAN: 'greedy' }, /TRENDS_REQUEST_PLAN/],
    ];
    for (const [env, message] of cases) expect(() => loadConfig(env), JSON.stringify(env)).toThrow(message);
    expect(loadConfig({ WEBHOOK_ALLOWED_CIDRS: '10.0.0.0/8, 127.0.0.1/32, fd00::/8, 192.168.1.5' }).webhookAllowedCidrs).toHaveLength(4);
  });
});
