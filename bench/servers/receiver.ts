// Child process of bench:webhooks: a loopback receiver that answers 200 and
// reports, per webhook-id, when it first arrived (batched over IPC).
import http from 'node:http';

let batch: Array<[string, number]> = [];
let total = 0;
const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    total += 1;
    const id = req.headers['webhook-id'];
    if (typeof id === 'string') batch.push([id, Date.now()]);
    res.writeHead(200).end();
  });
});
setInterval(() => {
  if (batch.length > 0) {
    process.send?.({ arrivals: batch, total });
    batch = [];
  }
}, 25).unref();
server.keepAliveTimeout = 5_000;
server.listen(0, '127.0.0.1', () => process.send?.({ port: (server.address() as { port: number }).port }));
process.on('disconnect', () => process.exit(0));
