import { defineSuite, type CheckContext } from '../src/engine/check.js';
import { CLIENT_IDS, CLIENTS, type ClientId } from '../src/interop/clients.js';
import { judge, type Step } from '../src/interop/judge.js';
import { MATRIX_WORK, type Matrix, type Mode } from '../src/interop/matrix.js';

const { check, describe, seal } = defineSuite('interop-matrix');

/**
 * The interop matrix: the official SDK clients (TypeScript v1 and v2, Python, Go), each its own program,
 * run side by side once per run by the run itself while the checks run (src/interop/matrix.ts).
 * Each row judges one client at one step from the lines it printed, with its wire log and its stderr.
 */

/** The matrix the run started beside its checks (src/engine/run.ts), read by every row. */
const matrixOnce = (c: CheckContext) => c.run.ledger.sharedWork<Matrix>(MATRIX_WORK);

/** The first check may wait for the whole matrix: every client at once, four runtimes on two cores. */
const TIMEOUT = 180_000;

function matrixCheck(client: ClientId, step: Step, name: string): void {
  const mode: Mode = step === 'stdio' ? 'stdio' : 'http';
  check({ ids: `interop-${client}-${step}`, name: name, timeout: TIMEOUT, run: async (c) => {
    if (c.settings.interopClients && !c.settings.interopClients.includes(client)) c.notApplicable(`--clients does not select ${client}`);
    const matrix = await matrixOnce(c);
    const cell = matrix.cells.find((x) => x.client === client && x.mode === mode)!;
    c.http.log.push(...(step === 'connect' || step === 'streaming' ? matrix.setupWire : []), ...cell.wire);
    for (const note of matrix.notes) c.observe(note);
    const connect = cell.run?.lines.find((l) => l.step === 'connect');
    c.tagClient({ client, sdk: CLIENTS[client].sdk, mode, ...(typeof connect?.protocolVersion === 'string' && { revision: connect.protocolVersion }) });
    try {
      judge(c, step, matrix, cell, c.target.profile.kind);
    } catch (err) {
      // The client's own account of a failure: its stderr (scrubbed with the run's secrets), last lines.
      if (cell.run?.stderr) c.observe(`${client} stderr: ${cell.run.stderr.slice(-1500)}`);
      throw err;
    }
  } });
}

for (const client of CLIENT_IDS) {
  describe(`interop matrix: ${CLIENTS[client].sdk}`, () => {
    // "Every MCP-capable client uses the same endpoint and the same way of authenticating."
    matrixCheck(client, 'connect', `${client} connects as an mcpServers entry (URL plus Authorization header) and lists the tools`);
    // "The body carries progress notifications, then ends with a final `result` event."
    matrixCheck(client, 'streaming', `${client} gets each streaming tool's progress in order, then its result`);
    // "A normal tool call gets a single JSON-RPC reply."
    matrixCheck(client, 'call', `${client} gets a non-streaming tool's result`);
    // "Every request to the MCP endpoint carries `Authorization: Bearer <API_KEY>`."
    matrixCheck(client, 'bad-key', `${client} surfaces an error for a revoked or wrong key`);
    // "The stdio proxy forwards only the final result to its stdio client; intermediate progress is not bridged."
    matrixCheck(client, 'stdio', `${client}'s stdio client gets every final result through the stdio proxy`);
  });
}

export default seal();
