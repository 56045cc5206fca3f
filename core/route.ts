// What a route is, as every part sees it: its method and path, what it does, the dialect that serves it and
// its error shape. The router (proxy/routing/router.ts) builds them from what each dialect declares.
import type { Dialect, ErrorRenderer } from './dialect.js';

export type { ApiFamily, DialectRoute } from './dialect.js';

export type RouteKind = 'generate' | 'count_tokens' | 'models' | 'model' | 'caps' | 'health' | 'ready';

export interface Route {
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly kind: RouteKind;
  /** The dialect that serves the route, or undefined while it is not installed. */
  readonly dialect: Dialect | undefined;
  /** The error shape of the route's dialect (spec section 7: responses errors use the chat shape). */
  readonly errors: ErrorRenderer;
}
