import type { Server } from 'node:http';

/**
 * Listens, or rejects with the listener's error (a port in use, a host that does not resolve) after
 * `undo` has released what was set up around the server, so that nothing keeps the process alive:
 * the CLI prints the one line and exits non-zero instead of running on, serving nothing.
 */
export async function listenOrUndo(
  server: Server,
  port: number,
  host: string,
  undo: () => void,
): Promise<void> {
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    undo();
    server.close();
    throw error;
  }
}
