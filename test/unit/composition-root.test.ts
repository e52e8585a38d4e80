// One place builds the services (STYLE.md 15): src/runtime/services.ts. A service
// constructed anywhere else in src/ is a second root, with its own settings and its
// own connections, drifting from the first; this test names the file and line.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(import.meta.dirname, '../../src');

/** The services of the root: each is built once per process, there. */
const SERVICES = [
  'WebhookService',
  'ResearchService',
  'ComparisonService',
  'QuotaStore',
  'ApiKeyCache',
  'ReadModelVersionWatcher',
  'ReadRouter',
  'ResearchChain',
  'EgressPool',
  'SubscriptionIndexCache',
  'QueuedTrendsGateway',
  'SecretBox',
  'DeliveryGate',
  'GoogleTrendsProvider',
  'ReplayTrendsProvider',
  'DataForSeoProvider',
  'PaidTrendsGateway',
] as const;

/**
 * Where a service may be constructed: the root, the pool factory it uses, each provider's adapter (the
 * factory the root's gateways call through the registry, src/providers/<name>/adapter.ts), and each
 * class's own file (its static factories).
 */
const ALLOWED = new Set(['runtime/services.ts', 'runtime/egress.ts']);
const isAdapter = (file: string) => /^providers\/[a-z0-9-]+\/adapter\.ts$/.test(file);
const OWN_FILE: Record<(typeof SERVICES)[number], string> = {
  WebhookService: 'webhooks/webhook-service.ts',
  ResearchService: 'research/research-service.ts',
  ComparisonService: 'research/comparison-service.ts',
  QuotaStore: 'accounts/quota.store.ts',
  ApiKeyCache: 'api-keys/api-key-cache.ts',
  ReadModelVersionWatcher: 'redis/read-model-version.ts',
  ReadRouter: 'db/read-router.ts',
  ResearchChain: 'research/chain.ts',
  EgressPool: 'providers/google/egress/egress-pool.ts',
  SubscriptionIndexCache: 'webhooks/subscription-index.cache.ts',
  QueuedTrendsGateway: 'research/trends-gateway.ts',
  SecretBox: 'webhooks/secret-box.ts',
  DeliveryGate: 'webhooks/delivery-gate.ts',
  GoogleTrendsProvider: 'providers/google/provider.ts',
  ReplayTrendsProvider: 'providers/replay/provider.ts',
  DataForSeoProvider: 'providers/dataforseo/provider.ts',
  PaidTrendsGateway: 'providers/paid-gateway.ts',
};

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** Every `new Service(` (and `Service.fromConfig(`) in src/ outside the allowed files, as "file:line Service". */
function constructionsOutsideRoot(files: ReadonlyArray<{ file: string; text: string }>): string[] {
  const found: string[] = [];
  const pattern = new RegExp(`\\b(?:new\\s+(${SERVICES.join('|')})\\s*[(<]|(SecretBox)\\.fromConfig\\s*\\()`, 'g');
  for (const { file, text } of files) {
    if (ALLOWED.has(file) || isAdapter(file)) continue;
    text.split('\n').forEach((line, i) => {
      for (const match of line.matchAll(pattern)) {
        const name = (match[1] ?? match[2]) as (typeof SERVICES)[number];
        if (OWN_FILE[name] !== file) found.push(`src/${file}:${i + 1} ${name}`);
      }
    });
  }
  return found;
}

describe('the composition root', () => {
  it('is the only place in src/ that constructs a service', () => {
    const files = sources(SRC).map((full) => ({
      file: path.relative(SRC, full).split(path.sep).join('/'),
      text: readFileSync(full, 'utf8'),
    }));
    expect(files.some((f) => f.file === 'runtime/services.ts')).toBe(true);
    expect(constructionsOutsideRoot(files)).toEqual([]);
  });

  it('finds a service constructed elsewhere (the check can fail)', () => {
    expect(
      constructionsOutsideRoot([
        {
          file: 'cli/commands/webhooks.command.ts',
          text: 'const s = new WebhookService({ db });\nconst b = SecretBox.fromConfig(config);',
        },
        { file: 'http/app.ts', text: '  quota: new QuotaStore(redis, keys, db, () => {}),' },
        { file: 'runtime/services.ts', text: 'new ResearchService(db, chain, settings)' },
        { file: 'research/chain.ts', text: 'return new ResearchChain(queue);' },
        {
          file: 'runtime/job-table.ts',
          text: '  const gate = new DeliveryGate(p.redis, keys);\n  provider: new GoogleTrendsProvider({ timeoutMs }),',
        },
        { file: 'research/research-service.ts', text: '{ replay: new ReplayTrendsProvider(dir).coverage() }' },
        { file: 'providers/replay/adapter.ts', text: 'new DirectTrendsGateway(new ReplayTrendsProvider(dir))' },
      ]),
    ).toEqual([
      'src/cli/commands/webhooks.command.ts:1 WebhookService',
      'src/cli/commands/webhooks.command.ts:2 SecretBox',
      'src/http/app.ts:1 QuotaStore',
      'src/runtime/job-table.ts:1 DeliveryGate',
      'src/runtime/job-table.ts:2 GoogleTrendsProvider',
      'src/research/research-service.ts:1 ReplayTrendsProvider',
    ]);
  });
});
