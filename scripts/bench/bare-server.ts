/**
 * Child process of scripts/bench-reference.ts: a bare `node:http` server that reads each POST body
 * and answers with the canned reply the parent sends over IPC (status, content-type and body bytes
 * the reference server returned for the same request). Other methods get 405. It is the ceiling:
 * the same HTTP exchange over the same loopback with no application work.
 *
 *   node dist/scripts/bench/bare-server.js
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { runChild } from '../../src/kit/child-runtime.js';

runChild('bare-server child', {
  needsReply: true,
  async start(reply) {
    if (!reply) throw new Error('no canned reply');
    const body = Buffer.from(reply.bodyBase64, 'base64');
    const headers = { 'content-type': reply.contentType, 'content-length': String(body.length) };
    // Same keep-alive timeout as the reference server.
    const http = createServer({ keepAliveTimeout: 5000 }, (req, res) => {
      if (req.method !== 'POST') {
        req.resume();
        res.writeHead(405, { allow: 'POST', 'content-length': '0' });
        res.end();
        return;
      }
      // Consume the request like the reference server does, then answer.
      req.on('data', () => {});
      req.on('end', () => {
        res.writeHead(reply.status, headers);
        res.end(body);
      });
    });
    await new Promise<void>((resolve, reject) => {
      http.once('error', reject);
      http.listen(0, '127.0.0.1', () => resolve());
    });
    const { port } = http.address() as AddressInfo;
    return {
      url: `http://127.0.0.1:${port}`,
      close: () => {
        http.closeAllConnections();
        return new Promise<void>((resolve) => http.close(() => resolve()));
      },
    };
  },
});
