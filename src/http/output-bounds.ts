// Bounds what one connection can make the process hold for a client that asks
// and does not read. HTTP/1.1 lets a client pipeline: write thousands of
// requests on one connection, then stop reading. Node parses every request in
// what it has read and the app answers each of them; answers that cannot be
// written wait in the process. One such connection asking for /openapi.json
// 1,600 times held about 280 MB.
//
// So, per connection: one request is worked on at a time (the next when the
// last answer has been handed to the socket), at most `maxPipelined` are taken
// up, and none while more than `maxQueuedBytes` wait for the client.
// Past either, the connection stops being read (the requests already read are
// dropped, unanswered), it gets one short 429 with `Connection: close` after the
// answers it is owed, and it closes once those are written. Over the whole
// process, answers waiting for clients are bounded by `maxQueuedTotalBytes`: past
// it, the connections holding the most are closed first. Any connection whose
// waiting answers make no progress for `stallTimeoutMs` is closed.
//
// Node stops reading a connection only when its HTTP parser is paused (pausing
// the socket alone does not: the parser reads the socket's handle directly),
// and it resumes both when its own output drains; hence `socket.parser` below.
//
// A connection given up on is reset, not ended: a client that never reads never
// sees a graceful close, so its side stayed open for good (CLOSE_WAIT) and ours
// lingered in the kernel's FIN-WAIT. One refused with a 429 gets its answers
// and a moment (CLOSE_GRACE_MS) to take them from the kernel, then the reset.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { PROBLEM_CONTENT_TYPE, problem } from './problem.js';
import { resetSocket } from './socket-reset.js';

export interface OutputLimits {
  /** Requests one connection may have in flight (read and not yet fully written to the client). */
  readonly maxPipelined: number;
  /** Bytes of answers one connection may have waiting in the process before no further request of it is taken up. */
  readonly maxQueuedBytes: number;
  /** Bytes of answers all connections together may have waiting in the process. */
  readonly maxQueuedTotalBytes: number;
  /** A connection whose waiting answers make no progress for this long is closed. */
  readonly stallTimeoutMs: number;
}

export type ConnectionClosedReason = 'too-many-pipelined' | 'too-much-unread' | 'stalled' | 'process-budget' | 'flooding';

export interface ConnectionEvent {
  reason: ConnectionClosedReason;
  address: string | undefined;
  inFlight: number;
  queuedBytes: number;
}

interface ConnectionState {
  /** Requests taken up (being worked on, or waiting their turn) whose answers are not yet fully handed to the client's socket. */
  readonly inFlight: Set<ServerResponse>;
  /** Past a bound: nothing more is read or answered; the connection closes once it has written what it owes. */
  closing: boolean;
  /** Requests read after it stopped being read (the rest of that read), dropped. */
  dropped: number;
  /** The request being worked on, and those taken up behind it, in order. */
  running: ServerResponse | null;
  readonly waiting: Array<{ req: IncomingMessage; res: ServerResponse }>;
  /** When the waiting answers last moved (an answer written out, the socket drained). */
  lastProgress: number;
}

interface HttpParserLike {
  pause?: () => void;
  /** Node's hand-off of each parsed request to the server (it makes the request's answer object). */
  onIncoming?: unknown;
}

type RequestHandler = (req: IncomingMessage, res: ServerResponse) => void;

/** How long a refused connection has, once its last answer is handed to the kernel, before it is reset. */
export const CLOSE_GRACE_MS = 1_000;

/** The request announces a body. */
export function hasBody(req: IncomingMessage): boolean {
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
}

const TOO_MANY_BODY = JSON.stringify(
  problem(
    'tooManyPipelined',
    'This connection sent more requests than it read answers for. It is closed after the answers already made; read each answer before sending more, or open another connection.',
  ),
);

export class OutputBounds {
  private readonly states = new WeakMap<Socket, ConnectionState>();
  /** Connections with answers in flight or closing: the ones the sweep looks at. */
  private readonly watched = new Set<Socket>();
  private sweeper: NodeJS.Timeout | undefined;
  /**
   * The waiting bytes over all connections, kept as each connection's answers
   * are handed to its socket and as it drains (`account`), and made exact by
   * every sweep. A bound read from the last sweep alone was a second late: a
   * request with a body is taken up only once the one before it is answered,
   * so pipelined requests with bodies never met the pipelining bound, and 200
   * connections piled up their 401s (each ten times the request's size) far
   * past the budget within that second, and ran the heap out (the second
   * outside review).
   */
  private queuedTotal = 0;
  private readonly counted = new WeakMap<Socket, number>();
  readonly stats = { refused: 0, stalled: 0, shed: 0 };

  constructor(
    private readonly limits: OutputLimits,
    private readonly onClose: (event: ConnectionEvent) => void = () => {},
    private readonly now: () => number = Date.now,
  ) {}

  /** The server's request handler, taking up only what the bounds allow. */
  wrap(handler: RequestHandler): RequestHandler {
    return (req, res) => {
      const socket = req.socket;
      const state = this.stateOf(socket);
      if (state.closing) {
        // Read before the connection stopped being read: dropped. Node keeps every request it
        // parsed until the connection closes (about 1 KB each, and one read holds up to a
        // thousand or two); a client still sending past twice the bound is flooding, not
        // waiting for answers, so it is closed at once and they are let go with it.
        state.dropped += 1;
        if (state.dropped === this.limits.maxPipelined) {
          this.onClose({
            reason: 'flooding',
            address: socket.remoteAddress,
            inFlight: state.inFlight.size,
            queuedBytes: this.queuedBytes(socket, state),
          });
          resetSocket(socket);
        }
        return;
      }
      const queued = this.account(socket, state);
      if (state.inFlight.size >= this.limits.maxPipelined) return this.refuse(res, socket, state, 'too-many-pipelined', queued);
      // A request with a body is never taken up behind another: Node has read its body into it
      // already, and sixteen 16 KB bodies waiting their turn on each of 1,900 connections held
      // 486 MB outside the heap (the fourth outside review). No client pipelines a write
      // (RFC 9112, section 9.3.2: only idempotent requests); one that does is answered the
      // requests before it, then a 429, and closed.
      if (state.inFlight.size > 0 && hasBody(req)) return this.refuse(res, socket, state, 'too-many-pipelined', queued);
      if (queued >= this.limits.maxQueuedBytes) return this.refuse(res, socket, state, 'too-much-unread', queued);
      if (queued > 0 && this.queuedTotal >= this.limits.maxQueuedTotalBytes)
        return this.refuse(res, socket, state, 'process-budget', queued);
      if (state.inFlight.size === 0) state.lastProgress = this.now();
      state.inFlight.add(res);
      this.watched.add(socket);
      const done = () => {
        if (!state.inFlight.delete(res)) return;
        state.lastProgress = this.now();
        this.account(socket, state);
        if (state.running === res) {
          state.running = null;
          this.startNext(socket, state, handler);
        }
      };
      res.once('finish', done);
      res.once('close', done);
      state.waiting.push({ req, res });
      this.startNext(socket, state, handler);
    };
  }

  /**
   * One request of a connection is worked on at a time: answers go out in order
   * anyway, so the next is taken up when the last one's answer has been handed to
   * the socket. A client that does not read then holds at most one answer in the
   * making, and a thousand pipelining connections run a thousand handlers, not
   * sixteen thousand.
   */
  private startNext(socket: Socket, state: ConnectionState, handler: RequestHandler): void {
    if (state.running !== null || socket.destroyed) return;
    const next = state.waiting.shift();
    if (!next) return;
    state.running = next.res;
    handler(next.req, next.res);
  }

  /** Starts the sweep with the server and stops it when the server closes. */
  attach(server: Server): void {
    const interval = Math.max(50, Math.min(1_000, Math.floor(this.limits.stallTimeoutMs / 4)));
    server.on('listening', () => {
      this.sweeper ??= setInterval(() => this.sweep(), interval);
      this.sweeper.unref();
    });
    server.on('close', () => {
      clearInterval(this.sweeper);
      this.sweeper = undefined;
    });
  }

  private stateOf(socket: Socket): ConnectionState {
    let state = this.states.get(socket);
    if (!state) {
      const created: ConnectionState = {
        inFlight: new Set(),
        closing: false,
        dropped: 0,
        running: null,
        waiting: [],
        lastProgress: this.now(),
      };
      socket.on('drain', () => {
        created.lastProgress = this.now();
        this.account(socket, created);
      });
      socket.once('close', () => {
        this.watched.delete(socket);
        created.waiting.length = 0;
        this.queuedTotal -= this.counted.get(socket) ?? 0;
        this.counted.delete(socket);
      });
      this.states.set(socket, created);
      state = created;
    }
    return state;
  }

  /** The connection's waiting bytes now, kept in the process's total; answers them. */
  private account(socket: Socket, state: ConnectionState): number {
    const bytes = socket.destroyed ? 0 : this.queuedBytes(socket, state);
    this.queuedTotal += bytes - (this.counted.get(socket) ?? 0);
    this.counted.set(socket, bytes);
    return bytes;
  }

  /** Bytes made for this connection that it has not taken yet: in its socket's buffer, and in answers queued behind the one being written. */
  private queuedBytes(socket: Socket, state: ConnectionState): number {
    let bytes = socket.writableLength;
    for (const res of state.inFlight) if (!res.socket) bytes += res.writableLength;
    return bytes;
  }

  private refuse(res: ServerResponse, socket: Socket, state: ConnectionState, reason: ConnectionClosedReason, queued: number): void {
    this.stats.refused += 1;
    this.stopReading(socket, state);
    this.watched.add(socket);
    if (state.inFlight.size === 0) state.lastProgress = this.now();
    this.onClose({ reason, address: socket.remoteAddress, inFlight: state.inFlight.size, queuedBytes: queued });
    // Written after the answers owed; Node closes the connection once it is out.
    res.writeHead(429, {
      'content-type': PROBLEM_CONTENT_TYPE,
      'content-length': Buffer.byteLength(TOO_MANY_BODY),
      connection: 'close',
      'retry-after': '1',
      'x-content-type-options': 'nosniff',
    });
    res.end(TOO_MANY_BODY);
  }

  /**
   * The answer being made is the connection's last: nothing more is read or
   * taken up from it, and once the answer is written it is closed (reset after
   * CLOSE_GRACE_MS for a client that does not read). The answer must say
   * `Connection: close`.
   */
  closeAfterAnswer(socket: Socket): void {
    // Only a connection of Node's HTTP server (an injected request has no parser to stop, and nothing to close).
    if (typeof (socket as Socket & { parser?: HttpParserLike | null }).parser?.pause !== 'function') return;
    const state = this.stateOf(socket);
    if (state.closing) return;
    this.watched.add(socket);
    this.stopReading(socket, state);
  }

  private stopReading(socket: Socket, state: ConnectionState): void {
    state.closing = true;
    const parser = (socket as Socket & { parser?: HttpParserLike | null }).parser;
    if (typeof parser?.pause !== 'function') {
      // Not Node's HTTP/1 server as we know it: without a way to stop reading, close at once.
      socket.destroy();
      return;
    }
    const stop = () => {
      socket.pause();
      (socket as Socket & { parser?: HttpParserLike | null }).parser?.pause?.();
    };
    stop();
    // The pause takes effect only after the read Node is parsing: up to 64 KB, some 3,640 bare
    // requests, each given a request and an answer object Node keeps until the connection
    // closes. With a few hundred such connections read in one turn of the event loop, that
    // alone ran a 384 MB heap out (the second outside review). What is parsed from here on
    // is dropped unanswered anyway, so Node's parser lets it go without making either.
    if (typeof parser.onIncoming === 'function') parser.onIncoming = () => 0;
    // Node resumes a connection when its own output drains; this one stays stopped.
    socket.on('resume', stop);
    // Node ends it once the 429 is written (destroySoon): a client that does not read would never see that end.
    (socket as Socket & { destroySoon: () => void }).destroySoon = () => {
      if (socket.writable) socket.end();
      const timer = setTimeout(() => resetSocket(socket), CLOSE_GRACE_MS);
      timer.unref();
      socket.once('close', () => clearTimeout(timer));
    };
  }

  private sweep(): void {
    const now = this.now();
    let total = 0;
    const holding: Array<{ socket: Socket; bytes: number }> = [];
    for (const socket of this.watched) {
      const state = this.states.get(socket);
      if (!state || socket.destroyed) {
        this.watched.delete(socket);
        continue;
      }
      const bytes = this.queuedBytes(socket, state);
      this.counted.set(socket, bytes);
      if (bytes === 0 && state.inFlight.size === 0 && !state.closing) {
        this.watched.delete(socket);
        continue;
      }
      // Waiting on the client (answers it has not taken), or owed nothing more and closing, without progress: close it.
      const waitingOnClient = bytes > 0 || (state.closing && state.inFlight.size === 0);
      if (waitingOnClient && now - state.lastProgress >= this.limits.stallTimeoutMs) {
        this.stats.stalled += 1;
        this.onClose({ reason: 'stalled', address: socket.remoteAddress, inFlight: state.inFlight.size, queuedBytes: bytes });
        resetSocket(socket);
        this.counted.set(socket, 0);
        this.watched.delete(socket);
        continue;
      }
      total += bytes;
      if (bytes > 0) holding.push({ socket, bytes });
    }
    // Over the process's budget: the connections holding the most go first.
    if (total > this.limits.maxQueuedTotalBytes) {
      holding.sort((a, b) => b.bytes - a.bytes);
      for (const { socket, bytes } of holding) {
        if (total <= this.limits.maxQueuedTotalBytes) break;
        const state = this.states.get(socket)!;
        this.stats.shed += 1;
        this.onClose({ reason: 'process-budget', address: socket.remoteAddress, inFlight: state.inFlight.size, queuedBytes: bytes });
        resetSocket(socket);
        this.counted.set(socket, 0);
        this.watched.delete(socket);
        total -= bytes;
      }
    }
    this.queuedTotal = total;
  }
}
