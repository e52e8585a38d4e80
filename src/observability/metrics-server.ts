// /metrics for a worker process (which has no web server), on METRICS_PORT.
import http from 'node:http';
import { isAdmin, registry } from './metrics.js';

export async function serveMetrics(port: number, adminToken: string, host: string): Promise<http.Server> {
  const server = http.createServer(async (req, res) => {
    if (req.url !== '/metrics') return res.writeHead(404).end();
    if (!isAdmin(req.headers.authorization, adminToken)) return res.writeHead(401, { 'www-authenticate': 'Basic realm="admin", Bearer' }).end();
    res.writeHead(200, { 'content-type': registry.contentType }).end(await registry.metrics());
  });
  await new Promise<void>((resolve) => server.listen(port, host, () => resolve()));
  return server;
}
