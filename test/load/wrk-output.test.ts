import { describe, expect, it } from 'vitest';
import { parseWrkOutput, wrkDurationMs } from '../../scripts/bench/wrk.js';

const OUTPUT = `Running 5s test @ http://127.0.0.1:40000/api/mcp/v1
  1 threads and 50 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     1.73ms  310.21us  12.40ms   91.02%
    Req/Sec    28.91k     1.20k   30.11k    80.00%
  Latency Distribution
     50%    1.69ms
     75%    1.80ms
     90%    1.98ms
     99%    2.95ms
  143880 requests in 5.00s, 1.34GB read
  Socket errors: connect 0, read 2, write 0, timeout 1
  Non-2xx or 3xx responses: 7
Requests/sec:  28775.41
Transfer/sec:    274.60MB
`;

describe('wrk output', () => {
  it('reads rate, count, duration, percentiles and errors', () => {
    expect(parseWrkOutput(OUTPUT)).toEqual({
      reqPerSec: 28775.41,
      requests: 143880,
      durationS: 5,
      latencyMs: { p50: 1.69, p90: 1.98, p99: 2.95 },
      non2xx3xx: 7,
      socketErrors: 3,
    });
  });

  it('converts every unit wrk prints, and refuses what it cannot read', () => {
    expect(wrkDurationMs('310.21us')).toBeCloseTo(0.31021, 6);
    expect(wrkDurationMs('1.05s')).toBe(1050);
    expect(wrkDurationMs('2.00m')).toBe(120_000);
    expect(() => wrkDurationMs('fast')).toThrow(/unreadable/);
    expect(() => parseWrkOutput('wrk: connection refused')).toThrow(/unreadable wrk output/);
  });
});
