// An HTTP CONNECT proxy on loopback, the same kind of hop a production egress
// proxy is (TRENDS_PROXY_URLS). Whatever host the client asks for, the tunnel
// goes to the loopback Google; it leaves from an address of its own
// (127.0.0.x), so Google tells the proxies apart as separate clients.
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';

export class LoopbackProxy {
  tunnels = 0;
  private server: http.Server | undefined;
  private readonly sockets = new Set<net.Socket>();
  port = 0;

  constructor(
    private readonly googlePort: number,
    /** The address this proxy's tunnels leave from, e.g. 127.0.0.2. */
    readonly egressAddress: string,
  ) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const server = http.createServer((_req, res) => res.writeHead(405, { allow: 'CONNECT' }).end());
    server.on('connect', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
      this.tunnels += 1;
      this.sockets.add(client);
      client.once('close', () => this.sockets.delete(client));
      client.on('error', () => {});
      const upstream = net.connect({ host: '127.0.0.1', port: this.googlePort, localAddress: this.egressAddress });
      this.sockets.add(upstream);
      upstream.once('close', () => this.sockets.delete(upstream));
      upstream.on('error', () => client.destroy());
      upstream.once('connect', () => {
        client.write('HTTP/1.1 200 Connection established\r\n\r\n');
        if (head.length > 0) upstream.write(head);
        upstream.pipe(client);
        client.pipe(upstream);
      });
      client.once('close', () => upstream.destroy());
    });
    this.server = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.port = (server.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise((r) => this.server?.close(r));
  }
}
