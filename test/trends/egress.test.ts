// Every Google request has one deadline over all its exchanges: a proxy or a
// Google that never answers is cut off there, and every socket it opened closes.
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { EgressTimeoutError } from '../../src/providers/google/egress/routes.js';
import { GoogleTrendsProvider } from '../../src/providers/google/provider.js';

const servers: net.Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
});

/** A TCP server that accepts, optionally answers CONNECT with 200, and then says nothing; resolves sockets as they close. */
async function silentPeer(answerConnect: boolean) {
  const closed: Array<Promise<void>> = [];
  const server = net.createServer((socket) => {
    closed.push(new Promise((r) => socket.once('close', () => r())));
    socket.on('error', () => {});
    // Read everything (a paused socket would never see the client's close).
    socket.on('data', () => {
      if (answerConnect && !socket.writableEnded) socket.write('HTTP/1.1 200 Connection established\r\n\r\n');
      answerConnect = false;
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: new URL(`http://127.0.0.1:${(server.address() as net.AddressInfo).port}`), closed };
}

describe('Google egress deadline', () => {
  it.each([
    ['a proxy that never answers CONNECT', false],
    ['a Google that never completes the TLS handshake behind the proxy', true],
  ])('%s: the request fails with a timeout at the deadline and its sockets close', async (_, answerConnect) => {
    const peer = await silentPeer(answerConnect);
    const provider = new GoogleTrendsProvider({ timeoutMs: 300 });
    const started = Date.now();
    const error = await provider.fetch({ kind: 'autocomplete', term: 'pizza' }, { name: 'silent', proxy: peer.url }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(EgressTimeoutError);
    expect(String(error)).toMatch(/did not answer within 300 ms \(via silent\)/);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(peer.closed.length).toBe(1);
    await Promise.all(peer.closed); // the tunnel's socket is gone, not left open
  });
});
