// The e-mail an alert event sends to its organization's admins: what crossed which threshold.
import type { AlertMailMessage } from '../../notify/alert-mail.js';
import type { AlertEvent } from '../../store/alert-events.js';
import { formatCredits } from '../../store/credits.js';

export function adminMail(orgName: string, admins: string[], event: AlertEvent): AlertMailMessage {
  const data = event.data;
  const credits = (field: string): string => formatCredits(Number(data[field] ?? 0));
  let subject: string;
  let line: string;
  if (event.type === 'balance.below') {
    subject = `[gateway] ${orgName}: balance below ${credits('threshold_micros')} credits`;
    line = `The balance of "${orgName}" is ${credits('balance_micros')} credits, below the alert threshold of ${credits('threshold_micros')} credits.`;
  } else if (event.type === 'cap.threshold') {
    const who = data.scope === 'key' ? `the key ${String(data.scope_id)}` : `the member ${String(data.scope_id)}`;
    subject = `[gateway] ${orgName}: ${who} at ${String(data.threshold_pct)}% of its ${String(data.period)} cap`;
    line = `${who[0]!.toUpperCase()}${who.slice(1)} has spent ${credits('spent_micros')} of its ${String(data.period)} cap of ${credits('cap_micros')} credits (${String(data.threshold_pct)}% alert), in the period from ${String(data.period_start)}.`;
  } else {
    subject = `[gateway] ${orgName}: test alert`;
    line = `This is a test alert for "${orgName}".`;
  }
  return {
    to: admins,
    subject,
    text: [line, '', `Event ${event.id} (${event.type}), ${new Date(event.createdAt).toISOString()}.`, ''].join('\n'),
  };
}
