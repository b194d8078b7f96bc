/**
 * Child process of the capacity command's calibration: an HTTP endpoint that answers every POST at once with
 * a fixed JSON-RPC result, so that a step against it measures nothing but the generator (and the machine the
 * two share). Its own process, as every load target's: the generator never shares its event loop.
 *
 *   node dist/load/capacity/no-op-child.js
 */
import { createServer } from 'node:http';
import { runChild } from '../../src/kit/child-runtime.js';

const REPLY = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { tools: [] } });

runChild('no-op endpoint (capacity calibration)', {
  needsReply: false,
  start: () => new Promise((resolve, reject) => {
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(REPLY) });
        res.end(REPLY);
      });
    });
    server.keepAliveTimeout = 60_000;
    server.headersTimeout = 65_000;
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port: 0, backlog: 4096 }, () => {
      const address = server.address();
      if (address === null || typeof address === 'string') return reject(new Error('no port'));
      resolve({
        url: `http://127.0.0.1:${address.port}`,
        close: () => new Promise<void>((done) => {
          server.closeAllConnections();
          server.close(() => done());
        }),
      });
    });
  }),
});
