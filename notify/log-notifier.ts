// Without `mail.url`, notices go to the log only, as one warning line per notice.
import type { Logger } from 'pino';
import type { LimitNotifier, OutputLimitNotice } from './notifier.js';

export class LogNotifier implements LimitNotifier {
  constructor(private readonly log: Logger | undefined) {}

  outputTokensBlocked(notice: OutputLimitNotice): void {
    this.log?.warn(
      { org: notice.orgId, limit: notice.limit, used: notice.used, resetAt: notice.resetAt.toISOString() },
      'output tokens block the organization (no mail.url: no e-mail sent)',
    );
  }

  async close(): Promise<void> {}
}
