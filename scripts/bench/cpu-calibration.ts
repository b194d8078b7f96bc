import { execFileSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';

/**
 * A fixed piece of work of the kinds a conformance run does (JSON text, hashing, regular expressions), timed
 * in a fresh Node process: the yardstick of this machine at this moment. A benchmark compares its own times
 * divided by this one's, measured in the same run, so that a slower or busier machine does not read as a
 * regression of the code (absolute figures from another machine do).
 */
const WORK = `
const { createHash } = require('node:crypto');
let acc = 0;
for (let i = 0; i < 6000; i++) {
  const doc = { jsonrpc: '2.0', id: i, result: { tools: Array.from({ length: 12 }, (_, k) => ({ name: 'tool' + k, description: 'x'.repeat(40 + k), inputSchema: { type: 'object', properties: { n: { type: 'integer', minimum: k } } } })) } };
  const text = JSON.stringify(doc);
  acc += JSON.parse(text).result.tools.length;
  acc += createHash('sha256').update(text).digest()[0];
  acc += (text.match(/"name":"tool\\d+"/g) || []).length;
}
if (acc <= 0) process.exit(1);
`;

/** Seconds the fixed work takes in a fresh process, process start included (the runs timed start one too). */
export function calibrationSeconds(): number {
  const start = performance.now();
  execFileSync(process.execPath, ['-e', WORK], { stdio: 'ignore' });
  return (performance.now() - start) / 1000;
}
