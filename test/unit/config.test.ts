import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

describe('config', () => {
  it('has working defaults with an empty environment', () => {
    const config = loadConfig({});
    expect(config.database.url).toBeUndefined();
    expect(config.redis.url).toBeUndefined();
    expect(config.web.host).toBe('127.0.0.1');
    expect(config.web.port).toBe(3000);
    expect(config.logLevel).toBe('info');
    // Google is paced in HTTPS requests per route; a block cools a route down 10 minutes, doubling up to an hour.
    expect(config.trends).toMatchObject({
      requestsPerMinute: 10,
      embedGapMs: 8_000,
      embedCooldownMs: 300_000,
      cooldownMs: 600_000,
      cooldownMaxMs: 3_600_000,
      refusedPauseMs: 600_000,
    });
    expect(config.schedules.googleCheckCron).toBe('');
  });

  it('reads TRENDS_PROVIDER as providers in order of preference, and wants what dataforseo needs', () => {
    const both = loadConfig({ TRENDS_PROVIDER: 'google, dataforseo', DATAFORSEO_LOGIN: 'l', DATAFORSEO_PASSWORD: 'p' });
    expect(both.trends.providers).toEqual(['google', 'dataforseo']);
    expect(both.trends.provider).toBe('google+dataforseo');
    expect(() => loadConfig({ TRENDS_PROVIDER: 'dataforseo' })).toThrow(/set DATAFORSEO_LOGIN and DATAFORSEO_PASSWORD/);
    expect(() => loadConfig({ TRENDS_PROVIDER: 'google,bing' })).toThrow(/among google, replay, synthetic, dataforseo.*got "bing"/);
    expect(() => loadConfig({ TRENDS_PROVIDER: 'google,google' })).toThrow(/lists "google" twice/);
    // The password travels in every request's header: plain http only to this machine.
    const remote = {
      TRENDS_PROVIDER: 'dataforseo',
      DATAFORSEO_LOGIN: 'l',
      DATAFORSEO_PASSWORD: 'p',
      DATAFORSEO_API_URL: 'http://api.example.com',
    };
    expect(() => loadConfig(remote)).toThrow(/DATAFORSEO_API_URL must use https:/);
    expect(loadConfig({ ...remote, DATAFORSEO_API_URL: 'http://127.0.0.1:9000/' }).providerSettings.dataforseo.apiUrl).toBe(
      'http://127.0.0.1:9000',
    );
    // Found by review: a malformed address crashed without naming the variable; one with a login would be printed at start.
    expect(() => loadConfig({ ...remote, DATAFORSEO_API_URL: 'https//api.dataforseo.com' })).toThrow(
      /DATAFORSEO_API_URL is not a valid URL/,
    );
    expect(() => loadConfig({ ...remote, DATAFORSEO_API_URL: 'https://me:secret@api.dataforseo.com' })).toThrow(
      /DATAFORSEO_API_URL must not carry a login/,
    );
    // A simulated world beside real data would publish simulated research as real.
    expect(() => loadConfig({ TRENDS_PROVIDER: 'dataforseo,synthetic', DATAFORSEO_LOGIN: 'l', DATAFORSEO_PASSWORD: 'p' })).toThrow(
      /synthetic is a simulated world and cannot be combined/,
    );
    expect(() => loadConfig({ TRENDS_PROVIDER: 'synthetic,dataforseo', DATAFORSEO_LOGIN: 'l', DATAFORSEO_PASSWORD: 'p' })).toThrow(
      /synthetic is a simulated world and cannot be combined/,
    );
  });

  it('is one frozen section per part of the service, frozen all the way down', () => {
    const config = loadConfig({ REDIS_CLUSTER_NODES: '127.0.0.1:7000', TRENDS_PROXY_URLS: 'http://10.0.0.5:3128' });
    expect(Object.keys(config).sort()).toEqual(
      [
        'admin',
        'apiClient',
        'dataDir',
        'database',
        'demoSeriesDir',
        'logLevel',
        'mail',
        'providerSettings',
        'redis',
        'research',
        'schedules',
        'tracing',
        'trends',
        'web',
        'webhooks',
        'worker',
      ].sort(),
    );
    const frozenThrough = (value: unknown, where: string): void => {
      if (value === null || typeof value !== 'object') return;
      expect(Object.isFrozen(value), `${where} is frozen`).toBe(true);
      for (const [key, inner] of Object.entries(value)) frozenThrough(inner, `${where}.${key}`);
    };
    frozenThrough(config, 'config');
    expect(() => {
      (config.webhooks.sends.perDay as { free: number }).free = 1_000_000;
    }).toThrow(TypeError);
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
      [
        { TRENDS_PROXY_URLS: 'http://10.0.0.5:3128,socks5://10.0.0.6:1080' },
        /TRENDS_PROXY_URLS: entry 2 of 2 \(socks5:\/\/10.0.0.6:1080\) is not an HTTP CONNECT proxy URL: it must use http:\/\//,
      ],
      [{ TRENDS_PROXY_URLS: 'http://user:secret@' }, /TRENDS_PROXY_URLS: entry 1 of 1 \(not shown: it may hold a password\)/],
      // Read as /8 before: everything after the second "/" was ignored.
      [{ WEBHOOK_ALLOWED_CIDRS: '10.0.0.0/8/99' }, /WEBHOOK_ALLOWED_CIDRS: "10.0.0.0\/8\/99" is not a CIDR/],
      [{ WEBHOOK_ALLOWED_CIDRS: '10.0.0.1/8' }, /bits set past \/8; the network is 10.0.0.0\/8/],
      // Accepted before, and then every request through the proxy failed on decoding its password.
      [
        { TRENDS_PROXY_URLS: 'http://user:p%zzw@10.0.0.5:3128' },
        /entry 1 of 1 \(http:\/\/10.0.0.5:3128\) is not an HTTP CONNECT proxy URL: its user name or password has a bad %-escape/,
      ],
      [{ TRUST_PROXY: '10.0.0.0/8/99' }, /TRUST_PROXY: "10.0.0.0\/8\/99" is not a CIDR/],
      [{ TRUST_PROXY: 'true' }, /TRUST_PROXY must list the proxies/],
      [{ TRUST_PROXY: '0.0.0.0/0' }, /TRUST_PROXY: 0.0.0.0\/0 is wider than a \/8/],
      [{ TRUST_PROXY: '::/0' }, /TRUST_PROXY: ::\/0 is wider than a \/8/],
      [{ TRUST_PROXY: '::ffff:0:0/96' }, /TRUST_PROXY: ::ffff:0:0\/96 is wider than a \/8/],
      [{ TRUST_PROXY: '10.0.0.1,64.0.0.0/2' }, /TRUST_PROXY: 64.0.0.0\/2 is wider than a \/8/],
      [{ TRUST_PROXY: '2000::/3' }, /TRUST_PROXY: 2000::\/3 is wider than a \/8/],
      [{ TRENDS_PROXY_URLS: 'http://10.0.0.5:3128,http://10.0.0.5:3128' }, /same proxy twice/],
      [{ TRENDS_REQUEST_PLAN: 'greedy' }, /TRENDS_REQUEST_PLAN/],
      [
        { TRENDS_COOLDOWN_MS: '900000', TRENDS_COOLDOWN_MAX_MS: '600000' },
        /TRENDS_COOLDOWN_MAX_MS \(600000\) must not be below TRENDS_COOLDOWN_MS \(900000\)/,
      ],
      [{ TRENDS_REQUESTS_PER_MINUTE: '-1' }, /TRENDS_REQUESTS_PER_MINUTE/],
      // Settings that counted jobs: an old .env is refused, saying what replaces them.
      [
        { TRENDS_RATE_PER_MINUTE: '10' },
        /TRENDS_RATE_PER_MINUTE is no longer read: it counted trends jobs.*set TRENDS_REQUESTS_PER_MINUTE/,
      ],
      [{ TRENDS_PAUSE_MS: '30000' }, /TRENDS_PAUSE_MS is no longer read: .*TRENDS_COOLDOWN_MS/],
    ];
    for (const [env, message] of cases) expect(() => loadConfig(env), JSON.stringify(env)).toThrow(message);
    expect(loadConfig({ WEBHOOK_ALLOWED_CIDRS: '10.0.0.0/8, 127.0.0.1/32, fd00::/8, 192.168.1.5' }).webhooks.allowedCidrs).toHaveLength(4);
  });

  it('never repeats a password in its messages, however the URL is written', () => {
    // A "/" in a password ends the URL's authority: the value no longer parses, and the
    // old message masked only up to the first "/", printing the rest of the password.
    const secrets = ['Qx7tz/Wm3ka@Jd9', 'Rk4pv/Ty8', 'Vb2n@Hq5:Lz6/Pw1', 'Zc8%zzMn4'];
    for (const secret of secrets) {
      for (const value of [
        `http://user:${secret}@10.0.0.5:3128`,
        `http://10.0.0.5:3128,http://u:${secret}@10.0.0.6:3128/`,
        `http://u:${secret}@`,
      ]) {
        let message = '';
        try {
          loadConfig({ TRENDS_PROXY_URLS: value, PUBLIC_BASE_URL: `http://user:${secret}@` });
        } catch (error) {
          message = (error as Error).message;
        }
        if (message === '') continue; // a value that is valid as written (the password is then its own)
        for (const part of secret.split(/[/@:%]/).filter((p) => p.length >= 3)) expect(message, `${value}: ${message}`).not.toContain(part);
      }
    }
    expect(() => loadConfig({ TRENDS_PROXY_URLS: 'http://user:pa/ss@10.0.0.5:3128' })).toThrow(/not shown: it may hold a password/);
  });

  it('SMTP_URL is smtp:// or smtps:// (its password never repeated); MAIL_FROM defaults to no-reply at PUBLIC_BASE_URL', () => {
    expect(loadConfig({}).mail).toEqual({ smtpUrl: undefined, from: 'Startup Insights <no-reply@127.0.0.1>' });
    expect(loadConfig({ PUBLIC_BASE_URL: 'https://insights.example.com' }).mail.from).toBe(
      'Startup Insights <no-reply@insights.example.com>',
    );
    expect(loadConfig({ SMTP_URL: 'smtps://u:p@mail.example.com:465' }).mail.smtpUrl).toBe('smtps://u:p@mail.example.com:465');
    expect(() => loadConfig({ SMTP_URL: 'http://u:Secret123@mail.example.com' })).toThrow(/SMTP_URL must use smtp: or smtps:/);
    let message = '';
    try {
      loadConfig({ SMTP_URL: 'smtp://u:Secret123@mail example.com:25' });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/SMTP_URL is not a valid URL/);
    expect(message).not.toContain('Secret123');
    expect(() => loadConfig({ MAIL_FROM: 'Insights <a@b.c>\r\nBcc: x@y.z' })).toThrow(/MAIL_FROM must be an address/);
  });

  it('TRUST_PROXY is off by default and a strict list of addresses and CIDRs when on', () => {
    expect(loadConfig({}).web.trustProxy).toEqual([]);
    expect(loadConfig({ TRUST_PROXY: 'false' }).web.trustProxy).toEqual([]);
    expect(loadConfig({ TRUST_PROXY: '127.0.0.1, 10.0.0.0/8,fd00::/8' }).web.trustProxy).toEqual(['127.0.0.1', '10.0.0.0/8', 'fd00::/8']);
    expect(loadConfig({ TRUST_PROXY: '::ffff:10.0.0.0/104' }).web.trustProxy).toEqual(['::ffff:10.0.0.0/104']);
  });

  it('PUBLIC_BASE_URL defaults to the address this process listens on, brackets around an IPv6 host, no trailing slash', () => {
    expect(loadConfig({}).web.publicBaseUrl).toBe('http://127.0.0.1:3000');
    expect(loadConfig({ HOST: '::1', PORT: '8080' }).web.publicBaseUrl).toBe('http://[::1]:8080');
    expect(loadConfig({ PUBLIC_BASE_URL: 'https://insights.example.com/' }).web.publicBaseUrl).toBe('https://insights.example.com');
  });
});

describe('TRENDS_CONSENT_COOKIES at start (review of issue 51)', () => {
  const problemsOf = (env: Record<string, string>) => {
    try {
      loadConfig(env);
    } catch (error) {
      // A ConfigError: the CLI and every process exit non-zero with it (2 for the CLI, src/cli/main.ts).
      expect(error).toBeInstanceOf(ConfigError);
      return (error as Error).message;
    }
    throw new Error('loadConfig accepted it');
  };

  it('an entry that is not "route=COOKIE" is named by position with the expected form, never echoed, and nothing about a route ""', () => {
    const message = problemsOf({ TRENDS_CONSENT_COOKIES: 'garbage' });
    expect(message).toMatch(/TRENDS_CONSENT_COOKIES: entry 1 of 1 .* is not "route=COOKIE"/);
    expect(message).toMatch(/route's name \(direct\)/);
    expect(message).toMatch(/direct=SOCS=CAI…; CONSENT=YES\+/);
    expect(message).not.toContain('garbage');
    expect(message).not.toContain('route ""');
    const second = problemsOf({ TRENDS_CONSENT_COOKIES: 'direct=SOCS=abc,=oops,direct=' });
    expect(second).toMatch(/entry 2 of 3/);
    expect(second).toMatch(/entry 3 of 3/);
    expect(second).not.toMatch(/entry 1 of 3/);
  });

  it('refuses a route given two cookies (the last one was kept silently), naming the route, not the cookies', () => {
    const message = problemsOf({ TRENDS_CONSENT_COOKIES: 'direct=SOCS=first,direct=SOCS=second' });
    expect(message).toMatch(/TRENDS_CONSENT_COOKIES gives route "direct" more than one cookie/);
    expect(message).not.toMatch(/first|second/);
  });

  it('takes a well-formed entry', () => {
    expect(loadConfig({ TRENDS_CONSENT_COOKIES: 'direct=SOCS=CAISHAgB; CONSENT=YES+' }).trends.consentCookies).toEqual({
      direct: 'SOCS=CAISHAgB; CONSENT=YES+',
    });
  });
});
