// Starts the whole loopback Google for a test or a benchmark: the simulated
// world, TLS for trends.google.com, the server and N CONNECT proxies. What a
// worker process needs to use it: `env` (TRENDS_PROXY_URLS and the
// NODE_EXTRA_CA_CERTS that trusts our authority).
import { rm } from 'node:fs/promises';
import { makeCertificates, type TestCertificates } from './certificates.js';
import { LoopbackProxy } from './proxy.js';
import { LoopbackGoogle, type LoopbackGoogleOptions } from './server.js';
import { SimulatedWorld, type WorldOptions } from './world.js';

export { LoopbackGoogle, LoopbackProxy, SimulatedWorld };

export interface GoogleOnLoopback {
  google: LoopbackGoogle;
  proxies: LoopbackProxy[];
  world: SimulatedWorld;
  certificates: TestCertificates;
  /** Environment for a worker process that should use this Google. */
  env: Record<string, string>;
  stop(): Promise<void>;
}

export async function startGoogleOnLoopback(
  options: LoopbackGoogleOptions & { proxies?: number; world?: WorldOptions } = {},
): Promise<GoogleOnLoopback> {
  const world = await SimulatedWorld.load(options.world);
  const certificates = await makeCertificates();
  const google = new LoopbackGoogle(world, certificates, options);
  await google.start();
  const proxies = Array.from({ length: options.proxies ?? 1 }, (_, i) => new LoopbackProxy(google.port, `127.0.0.${i + 2}`));
  await Promise.all(proxies.map((p) => p.start()));
  return {
    google,
    proxies,
    world,
    certificates,
    env: { TRENDS_PROXY_URLS: proxies.map((p) => p.url).join(','), NODE_EXTRA_CA_CERTS: certificates.caPath },
    async stop() {
      await Promise.all(proxies.map((p) => p.stop()));
      await google.stop();
      await rm(certificates.dir, { recursive: true, force: true });
    },
  };
}
