// /metrics for a worker process (which has no web server), on METRICS_PORT.
import http from 'node:http';
import { isAdmin, registry } from './metrics.js';

export async function serveMetrics(port: number, adminToken: string, host: string): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    // Data, never a page: as the web process's answers (see http/security-headers.ts).
    res.setHeader('x-content-type-options', 'nosniff');
    res.setHeader('x-frame-options', 'DENY');
    res.setHeader('content-security-policy', "default-src 'none'; frame-ancestors 'none'");
    if (req.url !== '/metrics') return void res.writeHead(404).end();
    if (!isAdmin(req.headers.authorization, adminToken))
      return void res.writeHead(401, { 'www-authenticate': 'Basic realm="admin", Bearer' }).end();
    // A failing collector answers 500 for this scrape; it must not become an unhandled rejection.
    registry.metrics().then(
      (body) => res.writeHead(200, { 'content-type': registry.contentType }).end(body),
      () => res.writeHead(500).end(),
    );
  });
  await new Promise<void>((resolve) => server.listen(port, host, () => resolve()));
  return server;
}
