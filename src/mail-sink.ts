import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/** Oldest mails are dropped beyond this, so a long run cannot exhaust memory. */
const MAX_MAILS = 1000;

export interface Mail {
  id: number; receivedAt: string; from: string | null; to: string[];
  subject: string | null; text: string | null; size: number; raw: string;
}

export interface MailSink {
  smtpPort: number;
  /** `GET` lists the mails (oldest first), `DELETE` forgets them. */
  messagesUrl: string;
  mails: Mail[];
  close(): Promise<void>;
}

/**
 * An SMTP sink (smtp-server, no auth, no TLS) that keeps the mails it receives, decoded by mailparser,
 * and serves them as JSON over HTTP so that test workers in other processes can read them.
 */
export async function startMailSink(options: { host?: string; smtpPort?: number; httpPort?: number; log?: (mail: Mail) => void } = {}): Promise<MailSink> {
  const host = options.host ?? '127.0.0.1';
  const mails: Mail[] = [];
  let nextId = 1;
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    disableReverseLookup: true,
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('error', callback);
      stream.on('end', () => {
        const raw = Buffer.concat(chunks);
        simpleParser(raw).then((parsed) => {
          const mail: Mail = {
            id: nextId++,
            receivedAt: new Date().toISOString(),
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : null,
            to: session.envelope.rcptTo.map((r) => r.address),
            subject: parsed.subject ?? null,
            text: parsed.text?.replace(/\r\n/g, '\n') ?? null,
            size: raw.length,
            raw: raw.toString('utf8'),
          };
          mails.push(mail);
          if (mails.length > MAX_MAILS) mails.shift();
          options.log?.(mail);
          callback();
        }, callback);
      });
    },
  });
  const http: Server = createServer((req, res) => {
    req.resume();
    const path = (req.url ?? '/').split('?', 1)[0];
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(body));
    };
    if (path !== '/messages') return send(404, { error: 'not_found', message: 'Only /messages exists.' });
    if (req.method === 'GET') return send(200, mails);
    if (req.method === 'DELETE') {
      mails.length = 0;
      return send(200, { deleted: true });
    }
    send(405, { error: 'method_not_allowed', message: 'Use GET or DELETE.' }, { allow: 'GET, DELETE' });
  });
  await new Promise<void>((resolve, reject) => {
    smtp.once('error', reject);
    smtp.listen(options.smtpPort ?? 0, host, () => resolve());
  });
  // Errors after startup (a client dropping mid-session) are the client's; keep serving.
  smtp.on('error', () => {});
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.httpPort ?? 0, host, () => resolve());
  });
  const shown = host.includes(':') ? `[${host}]` : host;
  return {
    smtpPort: (smtp.server.address() as AddressInfo).port,
    messagesUrl: `http://${shown}:${(http.address() as AddressInfo).port}/messages`,
    mails,
    async close() {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
      await new Promise<void>((resolve) => smtp.close(() => resolve()));
    },
  };
}
