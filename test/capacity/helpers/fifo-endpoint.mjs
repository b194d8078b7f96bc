// A known-capacity MCP endpoint for the capacity tests: `c` servers, each taking `s` ms per request, in front
// of one FIFO queue, so it holds c / s requests per second and no more (c=4, s=20 ms: 200 req/s). Service
// ends are scheduled on a virtual clock (a server's next free time is max(now, its last free time) + s), so a
// timer that fires late delays one reply, never the ones after it. Its own process: the load generator under
// test must not share its event loop. Plain JavaScript (run by node as it is: test files are not compiled).
//
//   node fifo-endpoint.mjs <servers> <service-ms>   -> IPC {type:'ready', url}; stops on disconnect or SIGTERM
import { createServer } from 'node:http';
import { performance } from 'node:perf_hooks';

const servers = Number(process.argv[2] ?? 4);
const serviceMs = Number(process.argv[3] ?? 20);
const freeAt = new Array(servers).fill(0);

const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    let id = null;
    try {
      id = JSON.parse(Buffer.concat(chunks).toString('utf8')).id ?? null;
    } catch {
      res.writeHead(400).end();
      return;
    }
    // FIFO: the server free soonest takes the request, from the later of now and its last end.
    const now = performance.now();
    let k = 0;
    for (let i = 1; i < servers; i++) if (freeAt[i] < freeAt[k]) k = i;
    const done = Math.max(now, freeAt[k]) + serviceMs;
    freeAt[k] = done;
    const body = JSON.stringify({ jsonrpc: '2.0', id, result: { tools: [] } });
    setTimeout(() => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    }, Math.max(0, done - performance.now()));
  });
});
server.keepAliveTimeout = 60_000;
server.headersTimeout = 65_000;
server.listen({ host: '127.0.0.1', port: 0, backlog: 4096 }, () => {
  const { port } = server.address();
  process.send?.({ type: 'ready', url: `http://127.0.0.1:${port}` });
});
const stop = () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
  setTimeout(() => process.exit(0), 2000).unref();
};
process.on('disconnect', stop);
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
