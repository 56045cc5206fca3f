// With `mail.url`, an organization whose output tokens block it gets one e-mail, to all its members
// (admins and members), at most once per `intervalMs` (an hour; spec §6.4, §8.3). This node remembers
// what it sent; with Redis, `SET <prefix>mail:output-blocked:<org> 1 NX PX <interval>` decides which
// node sends, so several nodes send once. Sending is fire and forget: outputTokensBlocked returns at
// once and never throws; a failure is logged and releases the claim, so a later block tries again.
import { createTransport } from 'nodemailer';
import type { Logger } from 'pino';
import type { RedisClient } from '../store/redis-client.js';
import type { Store } from '../store/store.js';
import type { LimitNotifier, OutputLimitNotice } from './notifier.js';

export interface MailNotifierOptions {
  /** `smtp://user:pass@host:587` or `smtps://…` (nodemailer's connection URL, query options included). */
  url: string;
  from: string;
  store(): Promise<Store>;
  /** The shared Redis client, when there is one. */
  redis(): RedisClient | undefined;
  /** Prefix of the Redis key names (`redis.key_prefix`). */
  keyPrefix: string;
  log?: Logger;
  /** The least time between two e-mails to one organization (default one hour). */
  intervalMs?: number;
  /** The clock (tests). */
  now?(): number;
}

const HOUR_MS = 3_600_000;

export class MailNotifier implements LimitNotifier {
  readonly #options: MailNotifierOptions;
  readonly #intervalMs: number;
  readonly #transport: ReturnType<typeof createTransport>;
  /** When this node last claimed each org's notice. */
  readonly #sentAt = new Map<string, number>();
  readonly #pending = new Set<Promise<void>>();

  constructor(options: MailNotifierOptions) {
    this.#options = options;
    this.#intervalMs = options.intervalMs ?? HOUR_MS;
    this.#transport = createTransport(options.url, { from: options.from });
  }

  outputTokensBlocked(notice: OutputLimitNotice): void {
    const now = this.#now();
    const last = this.#sentAt.get(notice.orgId);
    if (last !== undefined && now - last < this.#intervalMs) return;
    this.#sentAt.set(notice.orgId, now);
    const sending = this.#notify(notice, now).finally(() => this.#pending.delete(sending));
    this.#pending.add(sending);
  }

  /** Waits for the e-mails under way, then closes the SMTP connections. */
  async close(): Promise<void> {
    await Promise.allSettled([...this.#pending]);
    this.#transport.close();
  }

  async #notify(notice: OutputLimitNotice, claimedAt: number): Promise<void> {
    const log = this.#options.log;
    let claim: 'won' | 'lost' | 'none' = 'none';
    try {
      claim = await this.#claim(notice.orgId);
      if (claim === 'lost') {
        log?.debug({ org: notice.orgId }, 'mail: another node already sent this hour’s output-limit notice');
        return;
      }
      const store = await this.#options.store();
      const org = await store.orgs.get(notice.orgId);
      const members = await store.orgs.members(notice.orgId);
      if (members.length === 0) {
        log?.warn({ org: notice.orgId }, 'mail: the organization has no members to tell that output tokens block it');
        return;
      }
      const info = await this.#transport.sendMail({
        to: members.map((member) => member.email),
        subject: `[gateway] ${org.name}: output-token limit reached`,
        text: noticeText(org.name, notice, this.#intervalMs),
      });
      log?.info(
        { org: notice.orgId, recipients: members.length, messageId: info.messageId },
        'mail: output-limit notice sent',
      );
    } catch (error) {
      log?.error(
        { org: notice.orgId, err: (error as Error).message },
        'mail: the output-limit notice could not be sent',
      );
      // Nothing went out: the next block may try again, here or on another node.
      if (this.#sentAt.get(notice.orgId) === claimedAt) this.#sentAt.delete(notice.orgId);
      if (claim === 'won')
        await this.#options
          .redis()
          ?.del(this.#key(notice.orgId))
          .catch(() => undefined);
    }
  }

  /** Whether this node sends: Redis decides between nodes; without Redis (or when it fails), this node does. */
  async #claim(orgId: string): Promise<'won' | 'lost' | 'none'> {
    const redis = this.#options.redis();
    if (redis === undefined) return 'none';
    try {
      const set = await redis.set(this.#key(orgId), '1', 'PX', this.#intervalMs, 'NX');
      return set === 'OK' ? 'won' : 'lost';
    } catch (error) {
      this.#options.log?.warn(
        { org: orgId, err: (error as Error).message },
        'mail: Redis unavailable, sending the output-limit notice from this node',
      );
      return 'none';
    }
  }

  #key(orgId: string): string {
    return `${this.#options.keyPrefix}mail:output-blocked:${orgId}`;
  }

  #now(): number {
    return this.#options.now?.() ?? Date.now();
  }
}

function noticeText(orgName: string, notice: OutputLimitNotice, intervalMs: number): string {
  const minutes = Math.round(intervalMs / 60_000);
  return [
    `Your organization "${orgName}" has reached its output-token limit: ${notice.used.toLocaleString('en-US')} output tokens used of ${notice.limit.toLocaleString('en-US')} in the current window.`,
    '',
    `Until the window resets at ${notice.resetAt.toISOString()}, API requests are refused with 429 (retry-after tells how long to wait).`,
    'Requests resume in the next window by themselves; nothing needs to be done. A higher spend tier raises the limit.',
    '',
    `You receive this notice at most once every ${minutes === 60 ? 'hour' : `${minutes} minutes`} per organization.`,
    '',
  ].join('\n');
}
