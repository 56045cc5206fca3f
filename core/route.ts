// What a route is, as every part sees it: its method and path, what it does, the dialect that serves it and
// its error shape. The router (proxy/routing/router.ts) builds them from what each dialect declares.
import type { ApiFamily, Dialect, ErrorRenderer } from './dialect.js';

export type { ApiFamily, DialectRoute } from './dialect.js';

export type RouteKind = 'generate' | 'count_tokens' | 'models' | 'model' | 'caps' | 'resource' | 'health' | 'ready';

export interface Route {
  readonly method: 'GET' | 'POST' | 'DELETE';
  readonly path: string;
  readonly kind: RouteKind;
  /** The dialect that serves the route, or undefined while it is not installed. */
  readonly dialect: Dialect | undefined;
  /** The error shape of the route's dialect (spec section 7: responses errors use the chat shape). */
  readonly errors: ErrorRenderer;
  /** What a `resource` route does (the batch APIs' files and batches), as the API that declared it names it. */
  readonly operation?: string;
}

/**
 * A route of an API served beside the generations (the batch APIs), as that API declares it: `{id}` in its
 * path stands for one segment (a file's or a batch's id); its errors are in its family's dialect's shape.
 */
export interface ResourceRoute {
  readonly method: Route['method'];
  readonly path: string;
  readonly operation: string;
  readonly family: ApiFamily;
}
