// Self-serve top-ups (issue #28): the Checkout Sessions members open, and the one grant each paid session
// makes. The grant is the credit_grants row whose Stripe event and Checkout Session are both unique: it is
// inserted with ON CONFLICT DO NOTHING, and only the transaction that inserted it adds to the balance,
// completes the payment and writes the audit entry. A retried, replayed or concurrent delivery of the
// event (or another event of the same session) inserts nothing and changes nothing. Lifetime spend, which
// places an organization in a tier, is not touched: tiers follow spend, not top-ups.
import type { Kysely, Selectable } from 'kysely';
import { writeAudit, type Actor } from './audit-log.js';
import { newId } from './ids.js';
import { MAX_MICROS } from './money.js';
import type { Database, PaymentStatus, PaymentsTable } from './schema.js';
import { retryConflicts } from './transaction-retry.js';

/** Micro-credits per cent: 1 credit = $1 = 1,000,000 micro-credits. */
export const MICROS_PER_CENT = 10_000;

/** Who grants a paid session's credits, in the audit log. */
export const STRIPE_ACTOR: Actor = { who: 'stripe', address: null };

export interface Payment {
  id: string;
  orgId: string;
  checkoutSessionId: string | null;
  amountMicros: number;
  amountCents: number;
  currency: string;
  status: PaymentStatus;
  createdBy: string;
  createdAt: Date;
  completedAt: Date | null;
  stripeEventId: string | null;
  paymentIntent: string | null;
}

export interface NewPayment {
  orgId: string;
  amountCents: number;
  currency: string;
  /** The member's e-mail. */
  createdBy: string;
}

/** What a signed, paid `checkout.session.completed` event says. */
export interface PaidSession {
  eventId: string;
  sessionId: string;
  paymentIntent: string | null;
  /** `amount_total`, in the currency's minor unit. */
  amountCents: number;
  currency: string;
  /** The session's metadata, as we set it when making the session. */
  orgId: string | undefined;
  paymentId: string | undefined;
}

/** What a grant did: the credits added (once), a session already granted, or a refusal and why. */
export type GrantOutcome =
  | { outcome: 'granted'; payment: Payment }
  | { outcome: 'already_granted'; payment: Payment }
  | { outcome: 'refused'; reason: string };

type PaymentRow = Selectable<PaymentsTable>;

export class Payments {
  constructor(private readonly db: Kysely<Database>) {}

  /** Records a payment about to be made into a Checkout Session (`attachSession` names it then). */
  async open(payment: NewPayment): Promise<Payment> {
    const row = {
      id: newId('pay'),
      org_id: payment.orgId,
      checkout_session_id: null,
      amount_micros: payment.amountCents * MICROS_PER_CENT,
      amount_cents: payment.amountCents,
      currency: payment.currency,
      status: 'open' as const,
      created_by: payment.createdBy,
      created_at: Date.now(),
      completed_at: null,
      stripe_event_id: null,
      payment_intent: null,
    };
    await this.db.insertInto('payments').values(row).execute();
    return toPayment(row);
  }

  async attachSession(paymentId: string, sessionId: string): Promise<void> {
    await this.db.updateTable('payments').set({ checkout_session_id: sessionId }).where('id', '=', paymentId).execute();
  }

  /** Forgets a payment whose Checkout Session could not be made. */
  async discard(paymentId: string): Promise<void> {
    await this.db.deleteFrom('payments').where('id', '=', paymentId).where('checkout_session_id', 'is', null).execute();
  }

  /** The organization's payments with a Checkout Session, newest first. */
  async list(orgId: string, limit = 100): Promise<Payment[]> {
    const rows = await this.db
      .selectFrom('payments')
      .selectAll()
      .where('org_id', '=', orgId)
      .where('checkout_session_id', 'is not', null)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
    return rows.map(toPayment);
  }

  /** An open session that expired unpaid (`checkout.session.expired`); whether it was open. */
  async expire(sessionId: string): Promise<boolean> {
    const result = await this.db
      .updateTable('payments')
      .set({ status: 'expired' })
      .where('checkout_session_id', '=', sessionId)
      .where('status', '=', 'open')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** Grants a paid session's credits exactly once, if it is the session we made (amount, organization). */
  grant(paid: PaidSession): Promise<GrantOutcome> {
    return retryConflicts(() =>
      this.db.transaction().execute(async (trx): Promise<GrantOutcome> => {
        const row = await trx
          .selectFrom('payments')
          .selectAll()
          .where('checkout_session_id', '=', paid.sessionId)
          .executeTakeFirst();
        if (row === undefined) return { outcome: 'refused', reason: `unknown checkout session '${paid.sessionId}'` };
        const mismatch = mismatchOf(row, paid);
        if (mismatch !== undefined) return { outcome: 'refused', reason: mismatch };
        const now = Date.now();
        const inserted = await trx
          .insertInto('credit_grants')
          .values({
            id: newId('grant'),
            org_id: row.org_id,
            amount_micros: Number(row.amount_micros),
            note: 'stripe checkout',
            created_at: now,
            stripe_event_id: paid.eventId,
            checkout_session_id: paid.sessionId,
          })
          .onConflict((conflict) => conflict.doNothing())
          .executeTakeFirst();
        if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) {
          const granted = await trx
            .selectFrom('payments')
            .selectAll()
            .where('id', '=', row.id)
            .executeTakeFirstOrThrow();
          return { outcome: 'already_granted', payment: toPayment(granted) };
        }
        const org = await trx
          .selectFrom('orgs')
          .select('balance_micros')
          .where('id', '=', row.org_id)
          .executeTakeFirst();
        if (org === undefined) throw new Error(`payment ${row.id}: organization ${row.org_id} is gone`);
        // Refused before the write: the database's own check would abort the transaction anyway (migration 0003).
        if (Number(org.balance_micros) + Number(row.amount_micros) > MAX_MICROS)
          throw new RangeError(`payment ${row.id}: the balance would exceed ${MAX_MICROS} micro-credits`);
        await trx
          .updateTable('orgs')
          .set((eb) => ({ balance_micros: eb('balance_micros', '+', Number(row.amount_micros)) }))
          .where('id', '=', row.org_id)
          .execute();
        const completed = {
          status: 'complete' as const,
          completed_at: now,
          stripe_event_id: paid.eventId,
          payment_intent: paid.paymentIntent,
        };
        await trx.updateTable('payments').set(completed).where('id', '=', row.id).execute();
        await writeAudit(trx, {
          orgId: row.org_id,
          action: 'credits.added',
          actor: STRIPE_ACTOR,
          subject: row.id,
          detail: {
            amount_micros: Number(row.amount_micros),
            note: 'stripe checkout',
            checkout_session: paid.sessionId,
          },
        });
        return { outcome: 'granted', payment: toPayment({ ...row, ...completed }) };
      }),
    );
  }
}

/** Why a paid session is not the one we made, if it is not. */
function mismatchOf(row: PaymentRow, paid: PaidSession): string | undefined {
  if (paid.paymentId !== row.id) return `the session's metadata.payment_id is not the payment '${row.id}'`;
  if (paid.orgId !== row.org_id) return `the session's metadata.org_id is not the payment's organization`;
  if (paid.amountCents !== Number(row.amount_cents))
    return `amount_total ${paid.amountCents} is not the ${Number(row.amount_cents)} the session was made for`;
  if (paid.currency !== row.currency) return `currency '${paid.currency}' is not the session's '${row.currency}'`;
  return undefined;
}

function toPayment(row: PaymentRow): Payment {
  return {
    id: row.id,
    orgId: row.org_id,
    checkoutSessionId: row.checkout_session_id,
    amountMicros: Number(row.amount_micros),
    amountCents: Number(row.amount_cents),
    currency: row.currency,
    status: row.status,
    createdBy: row.created_by,
    createdAt: new Date(Number(row.created_at)),
    completedAt: row.completed_at === null ? null : new Date(Number(row.completed_at)),
    stripeEventId: row.stripe_event_id,
    paymentIntent: row.payment_intent,
  };
}
