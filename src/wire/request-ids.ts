/**
 * The run's one space of request ids. MCP basic/index, Requests: "The request ID MUST NOT have been previously
 * used by the requestor within the same session." Every request the harness builds draws its id here, whatever
 * check sends it and however many run at once, so no id repeats in the run, and so none in the run's session.
 * Ids a property generates as its subject (the envelope properties') are not drawn: on a stateful server they go
 * to sessions of their own (src/targets/own-sessions.ts).
 */
export class RequestIds {
  private last = 0;

  /** A new integer id, never used in this run. */
  next(): number {
    return ++this.last;
  }

  /** A new string id, `<name>-<n>`, never used in this run: a name says in the wire log which check sent it. */
  named(name: string): string {
    return `${name}-${this.next()}`;
  }
}
