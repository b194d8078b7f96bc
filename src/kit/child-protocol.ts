/** IPC messages between the benchmark (parent) and a server child process. */

/** The bytes the bare server answers every POST with: what the reference server returned for the same request. */
export interface CannedReply {
  status: number;
  contentType: string;
  /** Base64, so the exact bytes survive the JSON IPC channel. */
  bodyBase64: string;
}

export type ToChild =
  | { type: 'reply'; reply: CannedReply }
  | { type: 'cpu' }
  | { type: 'stop' };

export type FromChild =
  /** `admin`: a loopback admin channel the child offers (load/reference-child.ts), token included. */
  | { type: 'ready'; url: string; admin?: { url: string; token: string } }
  /** process.cpuUsage() of the child, user + system, in microseconds. */
  | { type: 'cpu'; micros: number }
  | { type: 'failed'; message: string };
