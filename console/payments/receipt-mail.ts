// The receipt of a top-up, e-mailed to the member who paid once its grant has committed, through the
// configured SMTP server (`mail.url`, nodemailer, as the console's sign-in mail). Sent in the background:
// the webhook answers Stripe without waiting for it; a failure is logged and the credits stay granted.
import { createTransport } from 'nodemailer';
import type { Logger } from 'pino';
import { formatCredits } from '../../store/credits.js';
import type { Payment } from '../../store/payments.js';

export interface Receipt {
  payment: Payment;
  orgName: string;
  balanceMicros: number;
}

export class ReceiptMail {
  readonly #transport: ReturnType<typeof createTransport>;
  readonly #pending = new Set<Promise<void>>();

  constructor(
    url: string,
    from: string,
    private readonly log: Logger,
  ) {
    this.#transport = createTransport(url, { from });
  }

  /** Sends the receipt in the background. */
  send(receipt: Receipt): void {
    const sending = this.#send(receipt).finally(() => this.#pending.delete(sending));
    this.#pending.add(sending);
  }

  /** Waits for the receipts under way, then closes the SMTP connections. */
  async close(): Promise<void> {
    await Promise.allSettled([...this.#pending]);
    this.#transport.close();
  }

  async #send({ payment, orgName, balanceMicros }: Receipt): Promise<void> {
    const paid = `${(payment.amountCents / 100).toFixed(2)} ${payment.currency.toUpperCase()}`;
    try {
      await this.#transport.sendMail({
        to: payment.createdBy,
        subject: `Receipt: ${formatCredits(payment.amountMicros)} credits for ${orgName}`,
        text: [
          `Thank you: your payment of ${paid} was received, and ${formatCredits(payment.amountMicros)} credits were added to the organization "${orgName}".`,
          '',
          `Balance now: ${formatCredits(balanceMicros)} credits`,
          `Payment: ${payment.id} (Stripe Checkout Session ${payment.checkoutSessionId})`,
          `Date: ${(payment.completedAt ?? new Date()).toISOString()}`,
          '',
          "Stripe sends its own receipt of the charge; the console's payments list shows every top-up.",
          '',
        ].join('\n'),
      });
      this.log.info({ payment: payment.id, to: payment.createdBy }, 'stripe: receipt sent');
    } catch (error) {
      this.log.error({ payment: payment.id, err: (error as Error).message }, 'stripe: the receipt could not be sent');
    }
  }
}
