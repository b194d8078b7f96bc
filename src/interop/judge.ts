import { SPEC_STREAMING_TOOLS } from '../profile/profile-derive.js';
import type { Cell, Matrix, PlannedCall } from './matrix.js';
import type { ClientLine } from './run-client.js';
import { blameTimeout, TIMEOUT_TEXT } from './timeout-blame.js';

/**
 * The verdicts of the matrix rows, from what one client printed (src/interop/clients/README.md). Written
 * against a small interface (the check context satisfies it) so each rule is tested without a client.
 */
export interface Judge {
  verify(ok: boolean, message: string, expected: unknown, actual: unknown): void;
  notTestable(reason: string): never;
  notApplicable(reason: string): never;
  observe(note: string): void;
}

export type Step = 'connect' | 'streaming' | 'call' | 'bad-key' | 'stdio';

/** The tools the description names (six: five streaming, and blocks.list). */
export const SPEC_TOOLS = [...SPEC_STREAMING_TOOLS, 'blocks.list'];

const linesOf = (cell: Cell, step: string): ClientLine[] => (cell.run?.lines ?? []).filter((l) => l.step === step);
const text = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));

/** Where the program stopped when it did not finish: hung (killed), crashed, or exited early. */
function stopped(cell: Cell): string | undefined {
  const run = cell.run!;
  if (run.hung) return `the client hung: it ${run.hung}`;
  const fatal = linesOf(cell, 'fatal')[0];
  if (fatal) return `the client stopped with an error: ${text(fatal.error)}`;
  if (linesOf(cell, 'close').length === 0) return `the client exited (code ${run.exitCode}) before its close step`;
  return undefined;
}

/** The end of the client's stderr (secrets redacted), for a reason. */
const stderrTail = (cell: Cell) => (cell.run?.stderr ? `; its stderr ends: ${cell.run.stderr.slice(-300)}` : '');

/** The cell ran, and the program is the harness's own working program: else the row cannot be judged. */
function ran(j: Judge, cell: Cell): void {
  if (cell.notRun) return cell.notRun.notApplicable ? j.notApplicable(cell.notRun.reason) : j.notTestable(cell.notRun.reason);
  const run = cell.run!;
  // No start line: the program never reached the SDK. A fatal line says why (its SDK cannot be loaded): the
  // runtime is missing, not the service at fault. Without one, the harness's own program broke.
  const fatal = linesOf(cell, 'fatal')[0];
  if (!run.lines.some((l) => l.step === 'start') && fatal) j.notTestable(`the ${cell.client} client could not load its SDK: ${text(fatal.error)}; install it with \`${cell.install}\``);
  // Killed before its first line: the runtime did not start within the grace this machine's start-up was given.
  // "A client that could not start ... in time because the harness's machine is starved" is not the service's.
  if (!run.lines.some((l) => l.step === 'start') && run.hung && cell.wire.length === 0) {
    j.notTestable(`the ${cell.client} client did not start on this machine in time (it ${run.hung}; no request of it reached the service): the harness's machine, not the service${stderrTail(cell)}`);
  }
  if (!run.lines.some((l) => l.step === 'start')) throw new Error(`the ${cell.client} client program did not start (exit ${run.exitCode}${run.hung ? `, ${run.hung}` : ''}): ${run.stderr.slice(-500)}`);
  // The client saw a 429 the harness could not wait out: what it made of it says nothing; the throttle does.
  if (cell.throttled) j.verify(false, cell.throttled, 'a reply other than 429 once the deployment\'s Retry-After was waited out', cell.throttled);
  if (run.unparsed.length > 0) j.observe(`the client printed ${run.unparsed.length} line(s) outside its contract: ${run.unparsed.slice(0, 2).join(' | ')}`);
  for (const e of linesOf(cell, 'transport-error').slice(0, 3)) j.observe(`the SDK reported a transport error at ${e.at} ms: ${text(e.error)}`);
}

/**
 * A step the client gave up on in time (its line's error names a timeout, or the watchdog killed it silent):
 * when the wire shows the time went to the harness's side, the row is not testable with that account
 * (src/interop/timeout-blame.ts); otherwise the caller's verdict stands, as the service's failure.
 */
function blameWait(j: Judge, matrix: Matrix, cell: Cell, what: string, connect: boolean, line: ClientLine | undefined): void {
  const run = cell.run;
  if (!run?.startedAt) return;
  const steps = run.lines.filter((l) => l.step !== 'transport-error' && l !== line);
  let to: number;
  if (line) {
    const error = text(line.error);
    // A call the client skipped because an earlier one timed out: that earlier one decided.
    if (line.ok !== false || !TIMEOUT_TEXT.test(error) || error.startsWith('not called:')) return;
    to = line.at;
  } else {
    if (!run.hung) return;
    to = run.durationMs;
  }
  const from = Math.max(0, ...steps.map((l) => l.at).filter((at) => at <= to));
  const blame = blameTimeout({
    what, connect, from: run.startedAt + from, to: run.startedAt + to, deadlineMs: matrix.timeoutMs ?? to - from, wire: cell.wire, stalls: matrix.stalls ?? [],
  });
  if (blame.side === 'harness') j.notTestable(`the ${cell.client} client over ${cell.mode}: ${blame.reason}`);
}

/** Connected and listed tools: the first two steps of every row that needs a session. */
function connected(j: Judge, matrix: Matrix, cell: Cell, listNeeded: boolean): void {
  const connect = linesOf(cell, 'connect')[0];
  if (!connect) blameWait(j, matrix, cell, 'connect', true, undefined);
  if (!connect) return j.verify(false, `the ${cell.client} client never finished connecting: ${stopped(cell) ?? 'no connect line'}`, 'a connected client', stopped(cell));
  // A client whose handshake offers only revisions the target does not speak (a 2025-era SDK, a 2026-only
  // server) cannot connect, and the protocol allows both: the row does not concern this pair.
  if (connect.ok !== true && matrix.revisions.length > 0 && !cell.speaks.some((r) => matrix.revisions.includes(r))) {
    j.notApplicable(`the ${cell.client} client speaks ${cell.speaks.join(', ')}; the target speaks ${matrix.revisions.join(', ')} (its refusal: ${text(connect.error).slice(0, 300)})`);
  }
  blameWait(j, matrix, cell, 'connect', true, connect);
  j.verify(connect.ok === true, `the ${cell.client} client could not connect: ${text(connect.error)}`, 'a connected client', connect.error);
  j.observe(`the ${cell.client} client negotiated ${text(connect.protocolVersion)}${connect.pinned === true ? ' (pinned)' : ''}`);
  if (!listNeeded) return;
  const list = linesOf(cell, 'list')[0];
  blameWait(j, matrix, cell, 'tools/list', false, list);
  if (!list) return j.verify(false, `the ${cell.client} client's tools/list never finished: ${stopped(cell) ?? 'no list line'}`, 'a tools/list result', stopped(cell));
  j.verify(list.ok === true, `the ${cell.client} client's tools/list failed: ${text(list.error)}`, 'a tools/list result the SDK accepts', list.error);
}

/** The line of one planned call, or the failure that there is none. */
function callLine(j: Judge, matrix: Matrix, cell: Cell, call: PlannedCall): ClientLine {
  const line = linesOf(cell, 'call').find((l) => l.tool === call.tool);
  blameWait(j, matrix, cell, `tools/call ${call.tool}`, false, line);
  if (!line) j.verify(false, `the ${cell.client} client never finished calling ${call.tool}: ${stopped(cell) ?? 'no call line'}`, `a result of ${call.tool}`, stopped(cell));
  j.verify(line!.ok === true, `the ${cell.client} client's ${call.tool} call failed: ${text(line!.error)}`, `a result of ${call.tool}`, line!.error);
  j.verify((line!.isError === true) === (call.expectError === true), `${call.tool} ended with ${line!.isError === true ? 'a tool error' : 'a successful result'} through the ${cell.client} client`, call.expectError ? 'isError: true (the recipe expects an error)' : 'isError absent or false', { isError: line!.isError === true, text: line!.text });
  return line!;
}

interface Progress { progress: number; at: number; afterResult?: boolean }

/** Whether the recorded stream of the client's call of `tool` carried a progress notification after its result (undefined: no such stream). */
function progressAfterResultOnWire(cell: Cell, tool: string): boolean | undefined {
  const x = cell.wire.find((e) => e.response?.events && /"tools\/call"/.test(e.request.body ?? '') && (e.request.body ?? '').includes(JSON.stringify(tool)));
  if (!x) return undefined;
  const messages = x.response!.events!.map((e) => {
    try {
      return JSON.parse(e.data) as { method?: string; result?: unknown; error?: unknown };
    } catch {
      return {};
    }
  });
  const end = messages.findIndex((m) => m.result !== undefined || m.error !== undefined);
  return end >= 0 && messages.slice(end + 1).some((m) => m.method === 'notifications/progress');
}

export function judge(j: Judge, step: Step, matrix: Matrix, cell: Cell, profileKind: 'service' | 'generic'): void {
  ran(j, cell);
  switch (step) {
    case 'connect': {
      connected(j, matrix, cell, true);
      const tools = (linesOf(cell, 'list')[0]!.tools as string[] | undefined) ?? [];
      j.verify(tools.length > 0, 'tools/list lists at least one tool', '>= 1 tool', tools.length);
      // "Complete list of tools ... not shown", but the description names six; an agent looks for them.
      if (profileKind === 'service') {
        const missing = SPEC_TOOLS.filter((t) => !tools.includes(t));
        j.verify(missing.length === 0, `the ${cell.client} client finds the description's six tools`, SPEC_TOOLS, { missing, listed: tools.length });
      }
      return;
    }
    case 'streaming': {
      const calls = matrix.calls.filter((c) => c.streaming);
      if (calls.length === 0) j.notTestable(`no streaming tool could be called: ${matrix.gaps.join('; ') || 'the profile has no streaming recipe'}`);
      for (const g of matrix.gaps) j.observe(`not called: ${g}`);
      connected(j, matrix, cell, false);
      for (const call of calls) {
        const line = callLine(j, matrix, cell, call);
        const progress = (line.progress as Progress[] | undefined) ?? [];
        const values = progress.map((p) => p.progress);
        j.verify(progress.length > 0, `the ${cell.client} client's progress callback saw the progress of ${call.tool} before its result`, '>= 1 progress notification with the token the SDK sent', progress.length);
        j.verify(values.every((v, i) => i === 0 || v > values[i - 1]!), `the progress of ${call.tool} reached the ${cell.client} client in increasing order`, 'strictly increasing', values);
        const late = progress.filter((p) => p.afterResult === true || (typeof line.resultAt === 'number' && p.at > line.resultAt));
        if (late.length > 0) {
          // An SDK that runs handlers on their own threads (Go's goroutines) may call one after the result it
          // came before: the wire, as the proxy recorded it, tells the service's order from the client's.
          const sentLate = progressAfterResultOnWire(cell, call.tool);
          j.verify(sentLate === false, `no progress of ${call.tool} reached the ${cell.client} client after its result${sentLate ? ' (the stream sent it after the result)' : ''}`, 0, late);
          j.observe(`${call.tool}: the ${cell.client} client's progress handler ran after the result for ${late.length} notification(s), but the stream sent every progress before the result (the SDK dispatches notifications asynchronously)`);
        }
        j.observe(`${call.tool}: progress ${values.join(', ')} at ${progress.map((p) => `${p.at} ms`).join(', ')}; result at ${text(line.resultAt)} ms`);
      }
      return;
    }
    case 'call': {
      const call = matrix.calls.find((c) => !c.streaming);
      if (!call) j.notTestable('the profile has no non-streaming recipe (calls.listBlocks)');
      connected(j, matrix, cell, false);
      const line = callLine(j, matrix, cell, call!);
      j.observe(`${call!.tool}: result at ${text(line.resultAt)} ms`);
      return;
    }
    case 'bad-key': {
      if (matrix.badKey === 'none') j.notTestable('the run holds no key, so there is no bad key to contrast it with');
      const line = linesOf(cell, 'bad-key')[0];
      // It connects a client of its own: a timeout there is judged like the first connect's.
      blameWait(j, matrix, cell, `connect with a ${matrix.badKey} key`, true, line);
      if (!line) return j.verify(false, `the ${cell.client} client with a ${matrix.badKey} key never surfaced anything: ${stopped(cell) ?? 'no bad-key line'}`, 'an error the client surfaces', stopped(cell));
      j.verify(line.accepted !== true, `the ${cell.client} client connected and listed tools with a ${matrix.badKey} key`, 'the request refused (401), surfaced by the client as an error', 'accepted');
      j.verify(line.ok === true, `the ${cell.client} client with a ${matrix.badKey} key did not surface an error`, 'an error the client surfaces', line);
      j.observe(`with a ${matrix.badKey} key the ${cell.client} client surfaced: ${text(line.error)}`);
      return;
    }
    case 'stdio': {
      connected(j, matrix, cell, true);
      // "The stdio proxy forwards only the final result to its stdio client": every call must get it.
      for (const call of matrix.calls) callLine(j, matrix, cell, call);
      if (linesOf(cell, 'close').length === 0) blameWait(j, matrix, cell, 'close', false, undefined);
      const errors = linesOf(cell, 'transport-error');
      j.verify(errors.length === 0, `the ${cell.client} client's stdio transport met something it could not parse`, 'only MCP messages the client parses', errors.map((e) => e.error));
      j.verify(linesOf(cell, 'close').length > 0, `the ${cell.client} client over stdio did not finish: ${stopped(cell)}`, 'close', stopped(cell));
      return;
    }
  }
}
