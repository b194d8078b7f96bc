import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startReference, type ReferenceServer } from '../helpers/reference.js';

interface Received { mailFrom: string | undefined; rcptTo: string[]; raw: string }

/** A local SMTP sink on 127.0.0.1 that keeps every message it accepts. */
async function startSink(options: SMTPServerOptions = {}) {
  const received: Received[] = [];
  const sink = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const { mailFrom, rcptTo } = session.envelope;
        received.push({ mailFrom: mailFrom ? mailFrom.address : undefined, rcptTo: rcptTo.map((r) => r.address), raw: Buffer.concat(chunks).toString('utf8') });
        callback();
      });
    },
    ...options,
  });
  await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', () => resolve()));
  const { port } = sink.server.address() as AddressInfo;
  return { received, url: `smtp://127.0.0.1:${port}`, close: () => new Promise<void>((resolve) => sink.close(() => resolve())) };
}

/** Header block and decoded text body of a single-part text/plain message. */
function parseMail(raw: string): { headers: string; body: string } {
  const split = raw.search(/\r?\n\r?\n/);
  const headers = raw.slice(0, split).replace(/\r?\n[ \t]+/g, ' ');
  const body = raw.slice(split).replace(/^\r?\n\r?\n/, '');
  expect(headers).toMatch(/^content-type:\s*text\/plain;\s*charset=utf-8/im);
  const encoding = /^content-transfer-encoding:\s*(\S+)/im.exec(headers)?.[1]?.toLowerCase() ?? '7bit';
  if (encoding === 'quoted-printable') {
    const bytes = body.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    return { headers, body: Buffer.from(bytes, 'latin1').toString('utf8') };
  }
  if (encoding === 'base64') return { headers, body: Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8') };
  return { headers, body };
}

function header(headers: string, name: string): string | undefined {
  return new RegExp(`^${name}:\\s*(.*)$`, 'im').exec(headers)?.[1];
}

function bootstrapBody(overrides: Record<string, string> = {}) {
  return { humanEmail: `human-${randomUUID()}@example.com`, agentName: 'mail agent', workspaceName: 'Mail WS', canvasName: 'Mail canvas', ...overrides };
}

async function bootstrapOn(server: ReferenceServer, body: Record<string, string>) {
  const started = performance.now();
  const res = await fetch(`${server.baseUrl}/api/agent/bootstrap`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, json: JSON.parse(text) as { apiKey: string; claimUrl: string; claimEmail: string }, text, ms: performance.now() - started };
}

/** The claim mail: addressed to the human, carrying the claim link, never the key. */
function expectClaimMail(raw: string, body: Record<string, string>, reply: { apiKey: string; claimUrl: string }): string {
  const mail = parseMail(raw);
  expect(header(mail.headers, 'to')).toContain(body.humanEmail);
  expect(mail.body).toContain(reply.claimUrl);
  // The link must survive intact on a line of its own, not wrapped into the prose.
  expect(mail.body.split(/\r?\n/)).toContain(reply.claimUrl);
  const secret = reply.apiKey.split('_live_')[1]!;
  for (const text of [raw, mail.body]) {
    expect(text).not.toContain(reply.apiKey);
    expect(text).not.toContain(secret);
  }
  return mail.body;
}

describe('no SMTP configured: local outbox', () => {
  let server: ReferenceServer;
  beforeAll(async () => {
    server = await startReference();
  });
  afterAll(async () => {
    await server?.close();
  });

  it('puts the claim mail in the in-memory outbox', async () => {
    const body = bootstrapBody();
    const before = server.outbox.length;
    const reply = await bootstrapOn(server, body);
    expect(reply.status, reply.text).toBe(201);
    expect(reply.json.claimEmail).toBe('sent');
    expect(server.outbox.length).toBe(before + 1);
    const mail = server.outbox.at(-1)!;
    expect(mail.to).toBe(body.humanEmail);
    expect(mail.text).toContain(reply.json.claimUrl);
    expect(mail.text).not.toContain(reply.json.apiKey);
    expect(mail.subject).not.toContain(reply.json.apiKey);
    expectClaimMail(mail.raw, body, reply.json);
  });

  it('keeps Unicode names intact in the mail', async () => {
    const body = bootstrapBody({ agentName: 'Агент 🤖', workspaceName: '数据 工作区', canvasName: 'לוח 📊' });
    const reply = await bootstrapOn(server, body);
    expect(reply.status, reply.text).toBe(201);
    const text = expectClaimMail(server.outbox.at(-1)!.raw, body, reply.json);
    for (const name of [body.agentName, body.workspaceName, body.canvasName]) expect(text).toContain(name);
  });

  it('keeps a long claim link intact', async () => {
    const long = await startReference({ publicBaseUrl: `https://${'sub.'.repeat(20)}example.test` });
    try {
      const body = bootstrapBody();
      const reply = await bootstrapOn(long, body);
      expect(reply.json.claimUrl.length).toBeGreaterThan(100);
      expectClaimMail(long.outbox.at(-1)!.raw, body, reply.json);
    } finally {
      await long.close();
    }
  });
});

describe('outbox directory', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'claim-mail-'));
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('writes each outbox mail as an .eml file, creating the directory', async () => {
    const outboxDir = join(dir, 'nested', 'outbox');
    const server = await startReference({ mail: { outboxDir } });
    try {
      const body = bootstrapBody();
      const reply = await bootstrapOn(server, body);
      expect(reply.status, reply.text).toBe(201);
      const files = readdirSync(outboxDir);
      expect(files).toHaveLength(1);
      expect(files[0]).toMatch(/\.eml$/);
      const raw = readFileSync(join(outboxDir, files[0]!), 'utf8');
      expect(raw).toBe(server.outbox[0]!.raw);
      expectClaimMail(raw, body, reply.json);
    } finally {
      await server.close();
    }
  });

  it('never overwrites a file when servers share the directory', async () => {
    const outboxDir = join(dir, 'shared');
    const servers = await Promise.all([startReference({ mail: { outboxDir } }), startReference({ mail: { outboxDir } })]);
    try {
      const replies = await Promise.all(servers.flatMap((s) => Array.from({ length: 8 }, () => bootstrapOn(s, bootstrapBody()))));
      expect(replies.every((r) => r.status === 201)).toBe(true);
      const files = readdirSync(outboxDir);
      expect(files).toHaveLength(replies.length);
      const contents = files.map((f) => readFileSync(join(outboxDir, f), 'utf8'));
      for (const reply of replies) expect(contents.filter((c) => parseMail(c).body.includes(reply.json.claimUrl))).toHaveLength(1);
    } finally {
      await Promise.all(servers.map((s) => s.close()));
    }
  });
});

describe('SMTP configured', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    while (cleanups.length) await cleanups.pop()!();
  });

  async function withServer(smtpUrl: string): Promise<ReferenceServer> {
    const server = await startReference({ mail: { smtpUrl } });
    cleanups.push(() => server.close());
    return server;
  }

  it('delivers the claim mail to humanEmail through the SMTP server', async () => {
    const sink = await startSink();
    cleanups.push(sink.close);
    const server = await withServer(sink.url);
    const body = bootstrapBody();
    const reply = await bootstrapOn(server, body);
    expect(reply.status, reply.text).toBe(201);
    expect(reply.json.claimEmail).toBe('sent');
    expect(sink.received).toHaveLength(1);
    const [mail] = sink.received;
    expect(mail!.rcptTo).toEqual([body.humanEmail]);
    expect(mail!.mailFrom).toBe('no-reply@canvas.invalid');
    expectClaimMail(mail!.raw, body, reply.json);
    // Delivered, so not also kept locally.
    expect(server.outbox).toHaveLength(0);
  });

  it('delivers Unicode names intact', async () => {
    const sink = await startSink();
    cleanups.push(sink.close);
    const server = await withServer(sink.url);
    const body = bootstrapBody({ agentName: 'エージェント', workspaceName: 'مساحة العمل', canvasName: '🚀 Launch' });
    const reply = await bootstrapOn(server, body);
    expect(reply.json.claimEmail).toBe('sent');
    const text = expectClaimMail(sink.received[0]!.raw, body, reply.json);
    for (const name of [body.agentName, body.workspaceName, body.canvasName]) expect(text).toContain(name);
  });

  it('honours transport options given in the SMTP URL (STARTTLS with a self-signed certificate)', async () => {
    const sink = await startSink({ disabledCommands: [] });
    cleanups.push(sink.close);
    const server = await withServer(`${sink.url}?requireTLS=true&tls.rejectUnauthorized=false`);
    const body = bootstrapBody();
    const reply = await bootstrapOn(server, body);
    expect(reply.json.claimEmail).toBe('sent');
    expect(sink.received).toHaveLength(1);
  });

  it('answers 201 with claimEmail "failed" when the SMTP server refuses the recipient', async () => {
    const sink = await startSink({
      onRcptTo(_address, _session, callback) {
        callback(Object.assign(new Error('5.1.1 No such user'), { responseCode: 550 }));
      },
    });
    cleanups.push(sink.close);
    const server = await withServer(sink.url);
    const reply = await bootstrapOn(server, bootstrapBody());
    expect(reply.status, reply.text).toBe(201);
    expect(reply.json.claimEmail).toBe('failed');
    expect(reply.json.apiKey).toMatch(/^cnv_live_/);
  });

  it('answers 201 with claimEmail "failed" when the SMTP server is unreachable', async () => {
    // A port that was just free: nothing listens there.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', () => resolve()));
    const { port } = probe.address() as AddressInfo;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const server = await withServer(`smtp://127.0.0.1:${port}`);
    const reply = await bootstrapOn(server, bootstrapBody());
    expect(reply.status, reply.text).toBe(201);
    expect(reply.json.claimEmail).toBe('failed');
    // A refused connection fails at once; the bound is one on a hang, generous for a slow machine.
    expect(reply.ms).toBeLessThan(10_000);
    // The key is usable even though no mail went out.
    const list = await fetch(server.mcpUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${reply.json.apiKey}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(list.status).toBe(200);
  });

  it('does not hold the reply while an SMTP server stays silent', async () => {
    // Accepts TCP and never greets: nodemailer alone would wait 30 s for the greeting.
    const sockets = new Set<Socket>();
    const silent = createServer((s) => {
      sockets.add(s);
      s.on('error', () => {});
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', () => resolve()));
    cleanups.push(async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    });
    const server = await withServer(`smtp://127.0.0.1:${(silent.address() as AddressInfo).port}`);
    const reply = await bootstrapOn(server, bootstrapBody());
    expect(reply.status, reply.text).toBe(201);
    expect(reply.json.claimEmail).toBe('pending');
    // Well before nodemailer's 30 s greeting timeout, however slow this machine is.
    expect(reply.ms).toBeLessThan(15_000);
  });
});
