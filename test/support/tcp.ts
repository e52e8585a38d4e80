import { readFileSync } from 'node:fs';

const STATES: Record<string, string> = {
  '01': 'ESTABLISHED',
  '02': 'SYN_SENT',
  '03': 'SYN_RECV',
  '04': 'FIN_WAIT1',
  '05': 'FIN_WAIT2',
  '06': 'TIME_WAIT',
  '07': 'CLOSE',
  '08': 'CLOSE_WAIT',
  '09': 'LAST_ACK',
  '0A': 'LISTEN',
  '0B': 'CLOSING',
};

/**
 * The kernel's IPv4 TCP connections to or from `serverPort` on this machine
 * (Linux's /proc/net/tcp), both ends of each: the server's side (local port
 * = serverPort) and the client's (remote port = serverPort), each named by the
 * client's port. Orphaned sockets a process has let go of are listed too.
 */
export function tcpConnections(serverPort: number): Array<{ side: 'server' | 'client'; clientPort: number; state: string }> {
  const rows = readFileSync('/proc/net/tcp', 'utf8').trim().split('\n').slice(1);
  const out: Array<{ side: 'server' | 'client'; clientPort: number; state: string }> = [];
  for (const row of rows) {
    const [, local, remote, state] = row.trim().split(/\s+/);
    const localPort = parseInt(local!.split(':')[1]!, 16);
    const remotePort = parseInt(remote!.split(':')[1]!, 16);
    const name = STATES[state!] ?? state!;
    if (name === 'LISTEN') continue;
    if (localPort === serverPort) out.push({ side: 'server', clientPort: remotePort, state: name });
    else if (remotePort === serverPort) out.push({ side: 'client', clientPort: localPort, state: name });
  }
  return out;
}
