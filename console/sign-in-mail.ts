// The e-mails of the console: a one-time sign-in link, and an invitation (the same link, with who
// invited the address to which organization). Through the configured SMTP server (`mail.url`, nodemailer).
import { createTransport } from 'nodemailer';

export interface Invitation {
  orgName: string;
  /** Who invited: an admin's e-mail. */
  by: string;
}

export class SignInMail {
  readonly #transport: ReturnType<typeof createTransport>;

  constructor(
    url: string,
    from: string,
    private readonly linkTtlMs: number,
  ) {
    this.#transport = createTransport(url, { from });
  }

  /** Sends `link` to `to`; rejects when the SMTP server does not take the message. */
  async send(to: string, link: string, invitation?: Invitation): Promise<void> {
    const minutes = Math.round(this.linkTtlMs / 60_000);
    const opening =
      invitation === undefined
        ? 'Here is your link to sign in to the console:'
        : `${invitation.by} invited you to the organization "${invitation.orgName}". Sign in to the console with this link:`;
    await this.#transport.sendMail({
      to,
      subject: invitation === undefined ? 'Your sign-in link' : `You are invited to ${invitation.orgName}`,
      text: [
        opening,
        '',
        link,
        '',
        `The link works once, within ${minutes} minutes. After that, ask for a new one on the console's sign-in page.`,
        'If you did not ask for it, you can ignore this e-mail.',
        '',
      ].join('\n'),
    });
  }

  close(): void {
    this.#transport.close();
  }
}
