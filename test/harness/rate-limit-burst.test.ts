import { describe, expect, it } from 'vitest';
import { ConformanceRuns } from '../../scripts/conformance-runs.js';

/**
 * Issue 33: a burst the harness could not generate is never the service's fault. A declared rate no machine
 * reaches (a billion requests a second) on a server without a limiter: rate-limit-exists cannot be judged, and
 * says why with what it measured (the rate it sent, its own load), instead of failing the service. The burst
 * gives up once even its best rate could not pass the bound in time, so the run is short on any machine.
 */
const pool = new ConformanceRuns(1);

describe('the rate-limit burst on a machine that cannot reach the declared rate', () => {
  it('rate-limit-exists is not testable, "could not outpace the declared rate", with the rate sent and the harness\'s load', async () => {
    const run = await pool.run(['--mutant', 'no-rate-limiter', '--only', 'rate-limit-exists', '--limits', 'rate=1000000000,burst=300', '--seed', '1']);
    expect(run.results, run.stderr).toBeDefined();
    const row = run.results!.requirements.find((r) => r.id === 'rate-limit-exists')!;
    const check = row.checks[0]!;
    const detail = `${check.status}: ${check.message ?? check.reason ?? ''}`;
    expect(row.status, detail).toBe('not-testable');
    expect(check.reason, detail).toMatch(/^the harness could not outpace the declared rate\b/);
    expect(check.reason, detail).toMatch(/[\d.]+ req\/s sent .* against a declared 1000000000\/s/);
    expect(check.reason, detail).toMatch(/event loop busy \d+% \(timer delay p50 [\d.]+ ms, p99 [\d.]+ ms, max [\d.]+ ms\), process CPU [\d.]+ s/);
    expect(check.reason, detail).toMatch(/given up after [\d.]+ s|stopped at the deadline/);
    expect(run.code, detail).toBe(0);
  }, 60_000);
});
