// What happens to a connection before any request of it reaches the app.
//
// Connection slots per client. HTTP_MAX_CONNECTIONS bounds the process, and
// one address holding every slot shut everyone else out: 2,000 sockets that
// never send a byte, reopened as soon as the headers deadline closes them,
// needed no key (found by an outside review). So once half the slots are in
// use, a client, as the unknown-key limiter knows it (an IPv4
// address, or the /64 of an IPv6 one), that already holds `maxPerClient` gets
// no more: its new connections are closed at accept. Below half, nobody is
// held back (a client with a large connection pool is not an attacker while
// there is room), and one address can never hold more than half plus nothing.
// The reverse proxies of TRUST_PROXY are exempt: every
// client behind them shares their address, and counting connections per client
// is then the proxy's job.
//
// Closing a connection whose client does not read. Node closes an idle keep-alive
// connection (and one it answered with `Connection: close`) with a FIN queued behind
// whatever answers the kernel still holds for the client; a client that never reads
// never reaches that FIN, so its side stayed open for good (an outside review: 0 of 4
// pipelining connections closed in 90 s, 2.7 MB each left in our kernel's send queue in
// FIN-WAIT-1). So the process keeps the socket after its FIN: a client that reads takes
// the FIN and closes, and the socket goes with it; one that has not within
// HTTP_UNREAD_TIMEOUT_MS is reset, which drops what the kernel held and tells the client.
//
// Errors of Node's HTTP parser (a control character in the request line, both
// Content-Length and Transfer-Encoding, headers past 16 KB, a request not
// complete by its deadline) are answered before Fastify sees a request, by
// default with a JSON body of Fastify's own and no security headers. Here they
// are answered as every other error is: problem+json, with the API's headers.
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { clientKey } from './unknown-key-limiter.js';
import { PROBLEM_CONTENT_TYPE, problem, type ProblemKind } from './problem.js';
import { API_ERROR_HEADERS } from './security-headers.js';
import { resetSocket } from './socket-reset.js';

export interface RefusedConnection {
  client: string;
  open: number;
}

export class ConnectionsPerClient {
  private readonly open = new Map<string, number>();
  /** Every connection open now, exempt ones included. */
  private total = 0;
  /** Clients at their cap whose refusal has been reported (once until they drop below it). */
  private readonly reported = new Set<string>();
  readonly stats = { refused: 0 };

  constructor(
    private readonly maxConnections: number,
    private readonly maxPerClient: number,
    private readonly exempt: (address: string) => boolean,
    private readonly onRefuse: (event: RefusedConnection) => void = () => {},
  ) {}

  attach(server: Server): void {
    server.on('connection', (socket: Socket) => this.admit(socket));
  }

  /** Connections of each client now open (for tests and metrics). */
  openOf(address: string): number {
    return this.open.get(clientKey(address)) ?? 0;
  }

  private admit(socket: Socket): void {
    this.total += 1;
    socket.once('close', () => (this.total -= 1));
    const address = socket.remoteAddress;
    if (address === undefined || this.exempt(address)) return;
    const client = clientKey(address);
    const open = this.open.get(client) ?? 0;
    if (open >= this.maxPerClient && this.total > this.maxConnections / 2) {
      this.stats.refused += 1;
      if (!this.reported.has(client)) {
        this.reported.add(client);
        this.onRefuse({ client, open });
      }
      socket.destroy();
      return;
    }
    this.open.set(client, open + 1);
    socket.once('close', () => {
      const left = (this.open.get(client) ?? 1) - 1;
      if (left > 0) this.open.set(client, left);
      else this.open.delete(client);
      if (left < this.maxPerClient) this.reported.delete(client);
    });
  }
}

/** Ends the socket (a FIN after the answers it is owed), and resets it unless the client has closed within `unreadTimeoutMs`. */
function endOrReset(socket: Socket, unreadTimeoutMs: number): void {
  if (socket.destroyed) return;
  if (socket.writable) socket.end();
  const timer = setTimeout(() => resetSocket(socket), unreadTimeoutMs);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
}

/**
 * Every close the server decides (an idle keep-alive connection, a `Connection: close` answer, Node's
 * socket timeout) waits at most `unreadTimeoutMs` for the client to take it, then resets (see the top of this file).
 * The output bounds's own closes (output-bounds.ts) set a shorter grace of their own.
 */
export function closeUnreadConnections(server: Server, unreadTimeoutMs: number): void {
  // Node destroys a timed-out socket only when nobody listens for the server's 'timeout'.
  server.on('timeout', (socket: Socket) => endOrReset(socket, unreadTimeoutMs));
  server.on('connection', (socket: Socket) => {
    // What Node calls once the last answer of a closing connection is written (it would end, then destroy at once).
    (socket as Socket & { destroySoon: () => void }).destroySoon = () => endOrReset(socket, unreadTimeoutMs);
  });
}

const PARSER_ERRORS: Record<string, { kind: ProblemKind; reason: string; detail: string }> = {
  ERR_HTTP_REQUEST_TIMEOUT: {
    kind: 'requestTimeout',
    reason: 'Request Timeout',
    detail: 'The request did not arrive in time (HTTP_REQUEST_TIMEOUT_MS, HTTP_HEADERS_TIMEOUT_MS).',
  },
  HPE_HEADER_OVERFLOW: {
    kind: 'headersTooLarge',
    reason: 'Request Header Fields Too Large',
    detail: 'The request headers are larger than this server reads.',
  },
};

/** Fastify's clientErrorHandler: answers what Node's parser refused, then closes the connection. */
export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const known = PARSER_ERRORS[error.code ?? ''];
  const kind: ProblemKind = known?.kind ?? 'badRequest';
  const body = JSON.stringify(
    problem(
      kind,
      known?.detail ??
        'The request is not valid HTTP/1.1 (a control character, a malformed header, or a body both chunked and of a stated length).',
    ),
  );
  const status = problem(kind, '').status;
  if (socket.writable) {
    socket.write(
      [
        `HTTP/1.1 ${status} ${known?.reason ?? 'Bad Request'}`,
        `content-type: ${PROBLEM_CONTENT_TYPE}`,
        `content-length: ${Buffer.byteLength(body)}`,
        'connection: close',
        ...Object.entries(API_ERROR_HEADERS).map(([name, value]) => `${name}: ${value}`),
        '',
        body,
      ].join('\r\n'),
    );
  }
  socket.destroy();
}
