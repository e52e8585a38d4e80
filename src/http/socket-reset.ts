import type { Socket } from 'node:net';

/** Closes the connection at once with a reset: both ends are gone, whatever the client has not read. */
export function resetSocket(socket: Socket): void {
  if (socket.destroyed) return;
  try {
    socket.resetAndDestroy();
  } catch {
    socket.destroy(); // not a TCP socket
  }
}
