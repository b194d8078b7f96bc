import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** A running FIFO-queue endpoint (fifo-endpoint.mjs) in its own process: `capacity` = servers / service time. */
export interface FifoEndpoint {
  baseUrl: string;
  capacity: number;
  stop(): Promise<void>;
}

const SCRIPT = fileURLToPath(new URL('./fifo-endpoint.mjs', import.meta.url));

/** Starts `servers` servers of `serviceMs` each behind one FIFO queue; resolves once it listens. */
export function startFifoEndpoint(servers: number, serviceMs: number): Promise<FifoEndpoint> {
  const child = spawn(process.execPath, [SCRIPT, String(servers), String(serviceMs)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    void exited.then(() => reject(new Error('the FIFO endpoint exited before it listened')));
    child.once('message', (m: { type: string; url: string }) => {
      resolve({
        baseUrl: m.url,
        capacity: (servers * 1000) / serviceMs,
        stop: async () => {
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
          await exited;
        },
      });
    });
  });
}
