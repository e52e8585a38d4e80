// The soak's webhook receiver: verifies every signature (Standard Webhooks),
// remembers what it got per subscription, and can misbehave on request:
// answer 500, or hold requests without answering, for a while.
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type ReceiverMode = 'ok' | 'error500' | 'hang';

export interface Receipt {
  subscription: string;
  webhookId: string;
  type: string;
  insightId: string | undefined;
  signatureValid: boolean;
  answered: number | 'hung';
}

function verify(secret: string, id: string, timestamp: string, body: string, header: string): boolean {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest();
  return header.split(' ').some((part) => {
    const [version, signature] = part.split(',');
    if (version !== 'v1' || !signature) return false;
    const given = Buffer.from(signature, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

export class WebhookReceiver {
  readonly receipts: Receipt[] = [];
  mode: ReceiverMode = 'ok';
  private readonly secrets = new Map<string, string>();
  private readonly held = new Set<http.ServerResponse>();
  private server: http.Server | undefined;
  port = 0;

  async listen(): Promise<void> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => this.handle(req, res, Buffer.concat(chunks).toString('utf8')));
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  urlFor(subscription: string): string {
    return `http://127.0.0.1:${this.port}/hooks/${subscription}`;
  }

  /** The secret of the subscription behind /hooks/<name>, once `webhooks add` has printed it. */
  setSecret(subscription: string, secret: string): void {
    this.secrets.set(subscription, secret);
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse, body: string): void {
    const subscription = (req.url ?? '').replace(/^\/hooks\//, '');
    const id = String(req.headers['webhook-id'] ?? '');
    const secret = this.secrets.get(subscription);
    let parsed: { type?: string; data?: { id?: string } } = {};
    try {
      parsed = JSON.parse(body) as typeof parsed;
    } catch {
      // recorded as unparseable below
    }
    const receipt: Receipt = {
      subscription,
      webhookId: id,
      type: parsed.type ?? '(unparseable)',
      insightId: parsed.data?.id,
      signatureValid:
        secret !== undefined &&
        verify(secret, id, String(req.headers['webhook-timestamp'] ?? ''), body, String(req.headers['webhook-signature'] ?? '')),
      answered: this.mode === 'hang' ? 'hung' : this.mode === 'error500' ? 500 : 200,
    };
    this.receipts.push(receipt);
    if (this.mode === 'hang') {
      // No answer: the sender's deadline must cut this off. Freed when the window ends.
      this.held.add(res);
      return;
    }
    res.writeHead(this.mode === 'error500' ? 500 : 200).end();
  }

  /** Misbehave for `ms`, then answer normally again (held requests are dropped). */
  misbehave(mode: Exclude<ReceiverMode, 'ok'>, ms: number): Promise<void> {
    this.mode = mode;
    return new Promise((resolve) =>
      setTimeout(() => {
        this.mode = 'ok';
        for (const res of this.held) res.destroy();
        this.held.clear();
        resolve();
      }, ms),
    );
  }

  /** True once every (subscription, webhook-id) pair in `expected` has been answered 200 at least once. */
  delivered(expected: Array<{ subscription: string; webhookId: string }>): boolean {
    const ok = new Set(this.receipts.filter((r) => r.answered === 200).map((r) => `${r.subscription}|${r.webhookId}`));
    return expected.every((e) => ok.has(`${e.subscription}|${e.webhookId}`));
  }

  async close(): Promise<void> {
    for (const res of this.held) res.destroy();
    this.server?.closeAllConnections();
    await new Promise((r) => this.server?.close(r));
  }
}
