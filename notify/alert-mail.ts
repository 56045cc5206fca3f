// Alert e-mails: an event told to the organization's admins through `mail.url` (nodemailer). Sent by
// the node that fired the event, once; a failure is logged (the webhooks have their own retries).
import { createTransport } from 'nodemailer';

export interface AlertMailMessage {
  to: string[];
  subject: string;
  text: string;
}

export class AlertMail {
  readonly #transport: ReturnType<typeof createTransport>;

  /** `url`: `smtp://user:pass@host:587` or `smtps://…`; `from`: the sender. */
  constructor(url: string, from: string) {
    this.#transport = createTransport(url, { from });
  }

  async send(message: AlertMailMessage): Promise<void> {
    await this.#transport.sendMail(message);
  }

  close(): void {
    this.#transport.close();
  }
}
