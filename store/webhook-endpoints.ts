// An organization's webhook endpoints: where its alert events are POSTed, each with its own signing
// secret, made here and returned once (at creation, like an API key); the store keeps it sealed.
import { randomBytes } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import type { AlertDatabase, WebhookEndpointsTable } from './alert-schema.js';
import { AlertFieldError } from './alert-rules.js';
import { newId } from './ids.js';
import type { WebhookSeal } from './webhook-seal.js';

export interface WebhookEndpoint {
  id: string;
  orgId: string;
  url: string;
  description: string;
  createdAt: number;
  disabledAt: number | null;
}

const MAX_URL = 2048;
const MAX_DESCRIPTION = 200;

export class WebhookEndpoints {
  constructor(
    private readonly db: Kysely<AlertDatabase>,
    private readonly now: () => number = Date.now,
  ) {}

  /** A new endpoint and its signing secret (`whsec_…`), which no later call returns. */
  async create(
    orgId: string,
    fields: { url: string; description: string },
    seal: WebhookSeal,
  ): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
    const url = checkedUrl(fields.url);
    if (fields.description.length > MAX_DESCRIPTION)
      throw new AlertFieldError('description', `'description' must be at most ${MAX_DESCRIPTION} characters`);
    const id = newId('whk');
    const secret = `whsec_${randomBytes(32).toString('base64url')}`;
    const row: Selectable<WebhookEndpointsTable> = {
      id,
      org_id: orgId,
      url,
      sealed_secret: seal.seal(id, secret),
      description: fields.description,
      created_at: this.now(),
      disabled_at: null,
    };
    await this.db.insertInto('webhook_endpoints').values(row).execute();
    return { endpoint: toEndpoint(row), secret };
  }

  async list(orgId: string): Promise<WebhookEndpoint[]> {
    const rows = await this.db
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('org_id', '=', orgId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(toEndpoint);
  }

  /** The organization's endpoint, or undefined (another organization's is not found either). */
  async find(orgId: string, id: string): Promise<WebhookEndpoint | undefined> {
    const row = await this.db
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('id', '=', id)
      .where('org_id', '=', orgId)
      .executeTakeFirst();
    return row && toEndpoint(row);
  }

  /** Stops deliveries to it (its pending attempts wait, unsent); the log stays. */
  async disable(orgId: string, id: string): Promise<WebhookEndpoint | undefined> {
    await this.db
      .updateTable('webhook_endpoints')
      .set({ disabled_at: this.now() })
      .where('id', '=', id)
      .where('org_id', '=', orgId)
      .where('disabled_at', 'is', null)
      .execute();
    return this.find(orgId, id);
  }

  /** Deletes it with its delivery log; false when the organization has none of that id. */
  async delete(orgId: string, id: string): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const result = await trx
        .deleteFrom('webhook_endpoints')
        .where('id', '=', id)
        .where('org_id', '=', orgId)
        .executeTakeFirst();
      if (Number(result.numDeletedRows) === 0) return false;
      await trx.deleteFrom('webhook_deliveries').where('endpoint_id', '=', id).execute();
      return true;
    });
  }
}

/** An http(s) URL without credentials, at most MAX_URL characters. */
function checkedUrl(text: string): string {
  let url: URL | undefined;
  try {
    url = text.length <= MAX_URL ? new URL(text) : undefined;
  } catch {
    url = undefined;
  }
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:'))
    throw new AlertFieldError('url', `'url' must be an http or https URL of at most ${MAX_URL} characters`);
  if (url.username !== '' || url.password !== '')
    throw new AlertFieldError('url', "'url' must not hold credentials (the signature authenticates the gateway)");
  return url.href;
}

function toEndpoint(row: Selectable<WebhookEndpointsTable>): WebhookEndpoint {
  return {
    id: row.id,
    orgId: row.org_id,
    url: row.url,
    description: row.description,
    createdAt: Number(row.created_at),
    disabledAt: row.disabled_at === null ? null : Number(row.disabled_at),
  };
}
