// A real SMTP server (the smtp-server package) on a free loopback port that keeps what it receives:
// plain SMTP without STARTTLS, AUTH PLAIN/LOGIN for one test user.
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  /** SMTP envelope. */
  from: string;
  to: string[];
  /** Header names in lower case; values unfolded. */
  headers: Record<string, string>;
  /** The decoded text body. */
  text: string;
}

export interface RunningSmtp {
  /** `smtp://user:pass@127.0.0.1:PORT`. */
  url: string;
  received: ReceivedMail[];
  /** The first mail that `matches`, received already or the next one to be: a test awaits it instead of polling. */
  mail(matches: (mail: ReceivedMail) => boolean): Promise<ReceivedMail>;
  close(): Promise<void>;
}

export const SMTP_USER = 'gateway';
export const SMTP_PASS = 'test-pass';

export async function startSmtp(): Promise<RunningSmtp> {
  const received: ReceivedMail[] = [];
  const waiting = new Set<{ matches: (mail: ReceivedMail) => boolean; resolve: (mail: ReceivedMail) => void }>();
  const server = new SMTPServer({
    secure: false,
    disabledCommands: ['STARTTLS'],
    authMethods: ['PLAIN', 'LOGIN'],
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === SMTP_USER && auth.password === SMTP_PASS) callback(null, { user: auth.username });
      else callback(new Error('Invalid username or password'));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const from = session.envelope.mailFrom === false ? '' : session.envelope.mailFrom.address;
        const mail: ReceivedMail = {
          from,
          to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
          ...parseMessage(Buffer.concat(chunks).toString('utf8')),
        };
        received.push(mail);
        for (const waiter of waiting) {
          if (!waiter.matches(mail)) continue;
          waiting.delete(waiter);
          waiter.resolve(mail);
        }
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://${SMTP_USER}:${SMTP_PASS}@127.0.0.1:${port}`,
    received,
    mail(matches) {
      const found = received.find(matches);
      if (found !== undefined) return Promise.resolve(found);
      return new Promise((resolve) => waiting.add({ matches, resolve }));
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Just enough MIME for a single-part text message: headers, and a 7bit or quoted-printable body. */
function parseMessage(raw: string): { headers: Record<string, string>; text: string } {
  const split = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, split).replace(/\r\n[ \t]+/g, ' ');
  const headers: Record<string, string> = {};
  for (const line of head.split('\r\n')) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body = raw.slice(split + 4);
  if (/quoted-printable/i.test(headers['content-transfer-encoding'] ?? '')) {
    const bytes = body
      .replace(/=\r\n/g, '')
      .replace(/=([0-9A-F]{2})/gi, (_match, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    body = Buffer.from(bytes, 'latin1').toString('utf8');
  }
  return { headers, text: body.replace(/\r\n/g, '\n') };
}
