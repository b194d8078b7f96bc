import { spawn, type ChildProcess } from 'node:child_process';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, expect, it } from 'vitest';

let child: ChildProcess;
const SMTP = 30000 + Math.floor(Math.random() * 5000);
const HTTP = SMTP + 1;

beforeAll(async () => {
  child = spawn(process.execPath, ['--import', 'tsx', 'fixtures/smtp-sink/main.ts', '--smtp-port', String(SMTP), '--http-port', String(HTTP)], { stdio: ['ignore', 'pipe', 'pipe'] });
  await new Promise<void>((resolve, reject) => {
    child.stderr!.on('data', (d: Buffer) => d.toString().includes('mails at') && resolve());
    child.on('exit', (code) => reject(new Error(`smtp-sink exited ${code}`)));
  });
});
afterAll(() => child.kill('SIGTERM'));

it('receives mail and serves it decoded: subject, recipients, plain text of a multipart body', async () => {
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port: SMTP, secure: false, ignoreTLS: true });
  await transport.sendMail({
    from: 'a@example.com', to: 'human@example.com',
    subject: 'Réclamez « le canevas » 🎨',
    text: `Claim it here:\nhttp://127.0.0.1/claim/${'x'.repeat(120)}\nÀ bientôt`,
    html: '<p>html part</p>',
  });
  const mails = await (await fetch(`http://127.0.0.1:${HTTP}/messages`)).json();
  expect(mails).toHaveLength(1);
  expect(mails[0]).toMatchObject({ to: ['human@example.com'], subject: 'Réclamez « le canevas » 🎨' });
  expect(mails[0].text).toContain(`http://127.0.0.1/claim/${'x'.repeat(120)}`);
  expect(mails[0].text).toContain('À bientôt');
  expect((await fetch(`http://127.0.0.1:${HTTP}/messages`, { method: 'DELETE' })).status).toBe(200);
  expect(await (await fetch(`http://127.0.0.1:${HTTP}/messages`)).json()).toEqual([]);
  expect((await fetch(`http://127.0.0.1:${HTTP}/messages`, { method: 'PUT' })).headers.get('allow')).toBe('GET, DELETE');
});
