// A webhook receiver in Node with the Standard Webhooks reference library:
//   npm install standardwebhooks
//   WEBHOOK_SECRET=whsec_… PORT=8080 node webhook-receiver.mjs
// It verifies every request (signature and timestamp) on the raw body, answers
// 400 to anything that fails, and handles each event id once (retries and
// replays reuse the id).
import http from 'node:http';
import { Webhook } from 'standardwebhooks';

const webhook = new Webhook(process.env.WEBHOOK_SECRET); // the whsec_… shown once by `insights webhooks add`
const seen = new Set(); // use your database in production: ids must outlive a restart

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    let event;
    try {
      // Verify the bytes as received: parsing and re-serialising would change them.
      event = webhook.verify(Buffer.concat(chunks).toString('utf8'), req.headers);
    } catch {
      res.writeHead(400).end();
      return;
    }
    const id = req.headers['webhook-id'];
    if (!seen.has(id)) {
      seen.add(id);
      // Hand the event to your own queue here and answer quickly (the sender waits at most 15 s).
      console.log(JSON.stringify({ verified: true, id, type: event.type, insight: event.data.id, title: event.data.title }));
    }
    res.writeHead(200).end();
  });
});

server.listen(Number(process.env.PORT ?? 8080), '127.0.0.1', () => {
  console.log(JSON.stringify({ listening: server.address().port }));
});
