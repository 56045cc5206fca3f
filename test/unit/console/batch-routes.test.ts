// The member API's batch routes with batches off (`batch.enabled: false`): both are a 404 that says so, for a
// member of the organization too.
import type { IncomingMessage } from 'node:http';
import t from 'tap';
import { AdminError } from '../../../admin/errors.js';
import { matchRoute } from '../../../admin/routes.js';
import { batchRoutes } from '../../../console/batch-routes.js';
import type { Store } from '../../../store/store.js';
import { rejection } from '../../helpers/rejection.js';

const routes = batchRoutes({
  enabled: false,
  // A member of the organization: access is granted, and the store is never reached.
  access: async (_req, orgId) => ({ orgId, store: {} as Store }),
});

const answer = (path: string) => {
  const { route, params } = matchRoute(routes, 'GET', path);
  return route.handle({ req: {} as IncomingMessage, params, query: new URLSearchParams() });
};

t.test('with batches off, the list and the download are a 404 that says batches are off', async (t) => {
  for (const path of ['/console/v1/orgs/org_a/batches', '/console/v1/orgs/org_a/batches/batch_x/results']) {
    const refused = await rejection(answer(path));
    t.type(refused, AdminError, path);
    t.match(refused, { status: 404, code: 'not_found', message: /batches are off on this gateway/ }, path);
  }
});
