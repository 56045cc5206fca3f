// Ends a connection in the middle of a response: what was written is flushed first (so the
// client gets exactly the chunks before the cut), then the socket closes without finishing the
// HTTP message. The client sees a premature end of the body.
import type { Socket } from 'node:net';

export function cutConnection(socket: Socket): void {
  socket.end(() => socket.destroy());
}
