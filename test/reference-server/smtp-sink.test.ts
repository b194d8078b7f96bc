import { spawn, type ChildProcess } from 'node:child_process';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { program } from '../../src/kit/package-root.js';

let child: ChildProcess;
let SMTP: number;
let MESSAGES: string;

// Ports 0: the sink binds free ports and names them (a random fixed port collided with another test's server).
beforeAll(async () => {
  child = spawn(process.execPath, [program('service/smtp-sink/main.ts'), '--smtp-port', '0', '--http-port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  await new Promise<void>((resolve, reject) => {
    let err = '';
    child.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
      const ready = /SMTP on port (\d+), mails at (\S+)/.exec(err);
      if (ready) [SMTP, MESSAGES] = [Number(ready[1]), ready[2]!];
      if (ready) resolve();
    });
    child.on('exit', (code) => reject(new Error(`smtp-sink exited ${code}: ${err}`)));
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
  const mails = await (await fetch(MESSAGES)).json();
  expect(mails).toHaveLength(1);
  expect(mails[0]).toMatchObject({ to: ['human@example.com'], subject: 'Réclamez « le canevas » 🎨' });
  expect(mails[0].text).toContain(`http://127.0.0.1/claim/${'x'.repeat(120)}`);
  expect(mails[0].text).toContain('À bientôt');
  expect((await fetch(MESSAGES, { method: 'DELETE' })).status).toBe(200);
  expect(await (await fetch(MESSAGES)).json()).toEqual([]);
  expect((await fetch(MESSAGES, { method: 'PUT' })).headers.get('allow')).toBe('GET, DELETE');
});
