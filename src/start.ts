// `npm start`: the whole service in one process for a single machine — the
// embedded defaults when DATABASE_URL / REDIS_URL are unset, migrations, demo
// data and a development key on first run, then the API.
import { access } from 'node:fs/promises';
import path from 'node:path';
import { createApiKey, countApiKeys } from './api-keys/api-key.repository.js';
import { API_KEY_SCOPES } from './domain/api-key.js';
import { createInvitation } from './members/invitations.js';
import { bumpReadModelVersion } from './redis/read-model-version.js';
import { loadConfig } from './config.js';
import { describeTarget } from './redis/connection.js';
import { migrateToLatest } from './db/migrate.js';
import { seedDemo } from './demo/demo-seed.js';
import { startDemoResearch } from './demo/demo-research.js';
import { startWebServer, type WebServer } from './http/server.js';
import { countInsights } from './insights/insight.repository.js';
import { createLogger, type Logger } from './logger.js';
import { exitWithError, onShutdown } from './runtime/process.js';
import { openResources } from './runtime/resources.js';
import { buildServices } from './runtime/services.js';
import { startWorkers, type Pipeline } from './runtime/workers.js';
import { reportBudget } from './observability/metrics.js';
import { profileOf } from './providers/registry.js';

/** The development account's owner, invited on the first run. */
const DEV_OWNER = 'dev@localhost';
const say = (line = '') => process.stdout.write(`${line}\n`);

let logger: Logger | undefined;
let web: WebServer | undefined;
let pipeline: Pipeline | undefined;
try {
  const config = loadConfig();
  logger = createLogger(config.logLevel, undefined, { traced: config.tracing.endpoint !== undefined });
  const resources = await openResources(config, logger, { serveEmbedded: true, role: 'start' });
  // One set of services for the web server and the workers of this process.
  const services = buildServices(resources, config, logger);
  onShutdown(
    logger,
    async () => {
      // Stop taking requests, then let active jobs finish, then close connections.
      await web?.close();
      await pipeline?.close();
      await services.close();
      await resources.close();
    },
    config.worker.shutdownTimeoutMs,
  );
  await migrateToLatest(resources.db);
  pipeline = await startWorkers(services, { keepSchedulers: true });
  reportBudget(() => services.budget());

  // What the first run loaded, for the banner: it states only what is there.
  let demo: { inserted: number; named: number } | { missing: string } | undefined;
  if ((await countInsights(resources.db)) === 0) {
    try {
      await access(path.join(config.demoSeriesDir, 'gtab-us-daily.csv'));
      demo = await seedDemo(resources.db, config.demoSeriesDir);
      await bumpReadModelVersion(resources.redis, resources.redisKeys, resources.db);
      logger.info({ inserted: demo.inserted, named: demo.named, from: config.demoSeriesDir }, 'loaded demo insights (first run)');
    } catch (error) {
      demo = { missing: error instanceof Error ? error.message : String(error) };
      logger.warn(
        { dir: config.demoSeriesDir, err: error },
        'no insights yet and no demo data loaded — run `npx insights seed --demo --from DIR` or `npx insights research "IDEA"`',
      );
    }
  }

  // A fresh machine shows what a researched insight looks like: a few runs of the real pipeline in a simulated world.
  const demoRuns = await startDemoResearch(resources.db, services.stepQueue);
  if (demoRuns.length > 0) logger.info({ runs: demoRuns }, 'started the demo research runs (simulated world, source synthetic)');

  web = await startWebServer(services);
  // Only once the API is up: a key created by a start that then failed would never be shown.
  let firstKey: string | undefined;
  let signInLink: string | undefined;
  if ((await countApiKeys(resources.db)) === 0) {
    // Every scope: the developer reads, researches and manages webhooks with the one key.
    const created = await createApiKey(resources.db, 'development (created by npm start)', 'pro', null, [...API_KEY_SCOPES]);
    firstKey = created.key;
    // And an owner of that account, to see it in the account pages (a one-time link, like the key).
    // The operator's own first owner, printed like the key (never mailed): invitations made by owners are mailed only.
    const invitation = await createInvitation(
      resources.db,
      { accountId: created.accountId, accountName: created.name, email: DEV_OWNER, role: 'owner', invitedBy: null },
      web.url,
      { printTo: 'operator' },
    );
    if (invitation.kind === 'printed') signInLink = invitation.link;
  }
  say();
  say(`Startup Insights is running.`);
  const url = web.url;
  say(`  API:   ${url}/api/insights`);
  say(`  Docs:  ${url}/docs`);
  if (demo && 'inserted' in demo) {
    const topics = demo.named === demo.inserted ? `${demo.inserted} named topics` : `${demo.inserted} topics (${demo.named} of them named)`;
    say(
      `  Recorded: real US Google Trends series of 2020 for ${topics} (source "recorded-series", labelled "recorded" with their dates: only momentum is scored from a bare series)`,
    );
  } else if (demo) {
    say(
      `  Demo:  no demo series loaded from ${config.demoSeriesDir} (DEMO_SERIES_DIR); \`npx insights seed --demo --from DIR\` loads them`,
    );
  }
  if (demoRuns.length > 0) {
    say(
      `  Demo research: ${demoRuns.length} startup ideas being researched now, all 40 steps, in a simulated world (source "synthetic", labelled "simulated", never live Google data):`,
    );
    say(`         npx insights runs list`);
  }
  const provider = config.trends.providers
    .map(
      (name) =>
        (
          ({
            google: 'google; Google must be reachable',
            replay: `replay: recorded answers only, such as "pizza" (${config.providerSettings.replay.recordedDir})`,
            synthetic: 'synthetic: a simulated world, never live Google data',
            dataforseo: `dataforseo: paid, at ${config.providerSettings.dataforseo.apiUrl}`,
          }) as Partial<Record<string, string>>
        )[name] ?? `${name}: ${profileOf(name).summary}`,
    )
    .join(', then ');
  say(`  Research a real idea: npx insights research "your idea" --wait   (Trends provider: ${provider})`);
  say(
    `  Data:  ${resources.embeddedPostgres ? `embedded Postgres under ${path.join(config.dataDir, 'pglite')}` : 'DATABASE_URL'}, Redis at ${describeTarget(resources.redisTarget)}`,
  );
  if (firstKey) {
    say();
    say(`First run: a development API key (Pro plan; scopes ${API_KEY_SCOPES.join(', ')}) was created. It is shown only this once:`);
    say(`  ${firstKey}`);
    if (signInLink) {
      say(
        `The account's pages ("API Keys", usage): set a password for ${DEV_OWNER} at this one-time link, then sign in at ${url}/account/sign-in:`,
      );
      say(`  ${signInLink}`);
    }
    say('Try it:');
    say(`  curl -H "Authorization: Bearer ${firstKey}" "${url}/api/insights?limit=3"`);
    say(
      `  curl -X POST -H "Authorization: Bearer ${firstKey}" -H 'Content-Type: application/json' -d '{"idea":"your idea","geo":"US"}' "${url}/api/research-runs"`,
    );
  } else {
    say('  Keys:  `npx insights keys create --name NAME --plan free|starter|pro|enterprise`');
    say(
      `  Pages: sign in at ${url}/account/sign-in (a person without a password: \`npx insights accounts invite --account ACC --email ADDRESS\`)`,
    );
  }
  if (config.admin.token) {
    say(`  Admin: ${url.replace('/api/insights', '')}/admin/queues and /metrics (ADMIN_TOKEN)`);
  }
  say();
} catch (error) {
  exitWithError(logger, error);
}
