import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Results } from '../../src/engine/results.js';
import { THIRD_PARTY_FAULTS } from '../../fixtures/third-party/faults.js';
import { startThirdParty, type RunningServer } from '../helpers/third-party.js';
import { runCli } from './run-cli.js';

/**
 * The streaming rows under the generic profile (suites/streaming-generic.suite.ts), on the TypeScript SDK server:
 * the tool that sends progress is found and judged; a profile that declares it streaming expects its progress,
 * so the same server with its progress silenced fails stream-progress-sent (and only that), while without the
 * declaration silence is allowed ("The receiver MAY send progress notifications").
 */

const PROFILE = 'fixtures/third-party/profile.json';
const ON_GET = THIRD_PARTY_FAULTS.find((f) => f.env.PROGRESS_ON_GET === '1')!;
const statusOf = (r: Results | undefined) => Object.fromEntries((r?.requirements ?? []).map((x) => [x.id, x.status]));
const observations = (r: Results | undefined, id: string) => (r?.requirements.find((x) => x.id === id)?.checks ?? []).flatMap((c) => c.observations);

describe('streaming rows for any server', () => {
  const servers: Partial<Record<'plain' | 'silent' | 'fromZero' | 'stateful' | 'onGet', RunningServer>> = {};
  beforeAll(async () => {
    [servers.plain, servers.silent, servers.fromZero, servers.stateful, servers.onGet] = await Promise.all([
      startThirdParty('ts-v1', 'stateless'), startThirdParty('ts-v1', 'stateless', { NO_PROGRESS: '1' }), startThirdParty('ts-v1', 'stateless', { COUNTDOWN_FROM_ZERO: '1' }),
      startThirdParty('ts-v1', 'stateful'), startThirdParty(ON_GET.server, ON_GET.mode, ON_GET.env),
    ]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all(Object.values(servers).map((s) => s?.stop()));
  });
  const run = (s: RunningServer, profile?: string) => runCli(['--target', 'url', '--mcp-url', s.url, ...(profile ? ['--profile', profile] : []), '--seed', '1', '--only', 'stream-'], 90_000);

  it('finds the tool that sends progress and judges its streams; a silent server has none to judge', async () => {
    const [found, silent] = await Promise.all([run(servers.plain!), run(servers.silent!)]);
    const status = statusOf(found.results);
    for (const id of ['stream-final-result-id', 'stream-nothing-after-result', 'stream-closes', 'stream-progress-token', 'stream-progress-increasing', 'stream-no-token-no-progress']) expect(status[id], id).toBe('pass');
    expect(observations(found.results, 'stream-progress-token').join('\n')).toMatch(/streaming call 1: countdown \{[^}]*\} \(found to send progress\)/);
    // Progress is optional in MCP: a server that sends none has no streaming call, and nothing fails.
    expect(silent.code, silent.stdout).toBe(0);
    expect(silent.results!.totals.notApplicable).toBe(silent.results!.requirements.length);
  });

  it('a declared streaming call must send progress: the silenced server fails stream-progress-sent, and only that', async () => {
    const [plain, silent] = await Promise.all([run(servers.plain!, PROFILE), run(servers.silent!, PROFILE)]);
    expect(statusOf(plain.results)['stream-progress-sent'], plain.stdout).toBe('pass');
    expect(plain.code).toBe(0);
    const failing = silent.results!.requirements.filter((x) => x.status === 'fail').map((x) => x.id);
    expect(failing).toEqual(['stream-progress-sent']);
    const message = silent.results!.requirements.find((x) => x.id === 'stream-progress-sent')!.checks.find((c) => c.status === 'fail')!.message;
    expect(message).toMatch(/no notifications\/progress before the result .* though the profile declares countdown a streaming call/);
  });

  // Issue 35 item 4: a countdown from 0 rightly sends no progress; the probe tries larger instances before it
  // calls the tool silent, and says which arguments it used.
  it('a tool whose smallest instance streams nothing is still found, with the arguments that streamed', async () => {
    const run = await runCli(['--target', 'url', '--mcp-url', servers.fromZero!.url, '--seed', '1', '--only', 'stream-'], 90_000);
    const status = statusOf(run.results);
    for (const id of ['stream-final-result-id', 'stream-progress-token', 'stream-progress-increasing', 'stream-no-token-no-progress']) expect(status[id], `${id}\n${run.stdout}`).toBe('pass');
    const found = observations(run.results, 'stream-progress-token').join('\n').match(/streaming call 1: countdown (\{[^}]*\}) \(found to send progress\)/);
    expect(found, observations(run.results, 'stream-progress-token').join('\n')).not.toBeNull();
    expect(JSON.parse(found![1]!).steps).toBeGreaterThan(0);
  });

  // Issue 35 item 4: a stateful server answering with JSON sends its progress on the session's standalone GET
  // stream. The probe reads that stream too: the tool is found, its progress judged where it went, and the
  // SHOULD that such messages be unrelated to a running request warns; the same SDK server streaming in its
  // replies passes that row with the stream open beside it.
  it('progress sent on the standalone GET stream is found and judged there, and warns stream-get-unrelated', async () => {
    const [onGet, stateful] = await Promise.all([run(servers.onGet!), run(servers.stateful!)]);
    const status = statusOf(onGet.results);
    expect(status['stream-get-unrelated'], onGet.stdout).toBe('warn');
    expect(ON_GET.violates).toEqual(['stream-get-unrelated']);
    expect(Object.entries(status).filter(([, v]) => v === 'fail' || v === 'warn').map(([id]) => id)).toEqual([...ON_GET.violates]);
    for (const id of ['stream-final-result-id', 'stream-progress-token', 'stream-progress-increasing']) expect(status[id], `${id}\n${onGet.stdout}`).toBe('pass');
    expect(observations(onGet.results, 'stream-progress-increasing').join('\n')).toMatch(/countdown \{[^}]*\} \(found to send progress on the session's standalone GET stream\)/);
    expect(observations(onGet.results, 'stream-progress-increasing').join('\n')).toMatch(/progress values: \[1,/);
    const warned = onGet.results!.requirements.find((r) => r.id === 'stream-get-unrelated')!.checks[0]!;
    expect(warned.message).toMatch(/progress notification\(s\) of requests still running came on the standalone GET stream/);
    expect(warned.wire.some((x) => x.request.method === 'GET')).toBe(true);
    expect(onGet.code, onGet.stdout).toBe(0);

    const plainStatus = statusOf(stateful.results);
    expect(plainStatus['stream-get-unrelated'], stateful.stdout).toBe('pass');
    expect(observations(stateful.results, 'stream-get-unrelated').join('\n')).toMatch(/the standalone GET stream stayed open while \d+ requests with progress tokens ran/);
    expect(observations(stateful.results, 'stream-progress-token').join('\n')).toMatch(/countdown \{[^}]*\} \(found to send progress\)/);
    // A server without sessions has no standalone stream of a session.
    const stateless = await run(servers.plain!);
    expect(statusOf(stateless.results)['stream-get-unrelated']).toBe('not-applicable');
  });

  it('a silent server is told which arguments each tool was tried with', async () => {
    const run = await runCli(['--target', 'url', '--mcp-url', servers.silent!.url, '--seed', '1', '--only', 'stream-final-result-id'], 90_000);
    const reasons = run.results!.requirements.flatMap((r) => r.checks.map((c) => c.reason ?? c.message ?? ''));
    expect(reasons.join('\n')).toMatch(/countdown with \{[^}]*\}/);
    // The probe's calls are the evidence for "no streaming call": kept whole in the reports, not cut to two.
    const kept = run.results!.requirements.flatMap((r) => r.checks).filter((c) => c.wire.some((x) => x.request.body?.includes('"tools/call"')));
    expect(kept.some((c) => c.wireLeftOut === undefined && c.wire.filter((x) => x.request.body?.includes('"tools/call"')).length >= 3), JSON.stringify(kept.map((c) => [c.name, c.wire.length, c.wireLeftOut]))).toBe(true);
  });
});
