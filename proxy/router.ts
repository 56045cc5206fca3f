import type { Dialect, DialectName, ErrorRenderer } from './dialect.js';

export type RouteKind = 'generate' | 'count_tokens' | 'models' | 'health' | 'ready';

export interface Route {
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly kind: RouteKind;
  /** The dialect that serves the route, or undefined while it is not installed. */
  readonly dialect: Dialect | undefined;
  /** The error shape of the route's dialect (spec section 7: responses errors use the chat shape). */
  readonly errors: ErrorRenderer;
}

/** The spec's endpoint table (section 4). */
const ENDPOINTS: ReadonlyArray<{
  method: Route['method'];
  path: string;
  kind: RouteKind;
  dialect: DialectName;
  errorShape: DialectName;
}> = [
  { method: 'POST', path: '/v1/chat/completions', kind: 'generate', dialect: 'chat', errorShape: 'chat' },
  { method: 'POST', path: '/v1/messages', kind: 'generate', dialect: 'messages', errorShape: 'messages' },
  {
    method: 'POST',
    path: '/v1/messages/count_tokens',
    kind: 'count_tokens',
    dialect: 'messages',
    errorShape: 'messages',
  },
  { method: 'POST', path: '/v1/responses', kind: 'generate', dialect: 'responses', errorShape: 'chat' },
  { method: 'GET', path: '/v1/models', kind: 'models', dialect: 'chat', errorShape: 'chat' },
  { method: 'GET', path: '/health', kind: 'health', dialect: 'chat', errorShape: 'chat' },
  { method: 'GET', path: '/ready', kind: 'ready', dialect: 'chat', errorShape: 'chat' },
];

export type RouteMatch =
  { found: true; route: Route } | { found: false; reason: 'path' | 'method'; errors: ErrorRenderer };

export class Router {
  readonly #byPath = new Map<string, Route[]>();
  readonly #errorShapes: Record<DialectName, ErrorRenderer>;

  constructor(dialects: Partial<Record<DialectName, Dialect>>, errorShapes: Record<DialectName, ErrorRenderer>) {
    this.#errorShapes = errorShapes;
    for (const endpoint of ENDPOINTS) {
      const route: Route = {
        method: endpoint.method,
        path: endpoint.path,
        kind: endpoint.kind,
        dialect: dialects[endpoint.dialect],
        errors: errorShapes[endpoint.errorShape],
      };
      const routes = this.#byPath.get(route.path) ?? [];
      routes.push(route);
      this.#byPath.set(route.path, routes);
    }
  }

  /** Finds the route for a request line; the query string (e.g. `?beta=true`) is ignored. */
  match(method: string, url: string): RouteMatch {
    const queryAt = url.indexOf('?');
    const path = queryAt === -1 ? url : url.slice(0, queryAt);
    const routes = this.#byPath.get(path);
    if (routes === undefined) return { found: false, reason: 'path', errors: this.errorsFor(path) };
    const route = routes.find((candidate) => candidate.method === method);
    if (route === undefined) return { found: false, reason: 'method', errors: routes[0]!.errors };
    return { found: true, route };
  }

  /**
   * The route a WebSocket upgrade on `url` opens: the generation route on that path whose dialect has a
   * WebSocket mode (GET /v1/responses). Otherwise why not: no such path, or no WebSocket on it.
   */
  matchSocket(url: string): RouteMatch {
    const queryAt = url.indexOf('?');
    const path = queryAt === -1 ? url : url.slice(0, queryAt);
    const routes = this.#byPath.get(path);
    if (routes === undefined) return { found: false, reason: 'path', errors: this.errorsFor(path) };
    const route = routes.find((candidate) => candidate.kind === 'generate' && candidate.dialect?.socket !== undefined);
    if (route === undefined) return { found: false, reason: 'method', errors: routes[0]!.errors };
    return { found: true, route };
  }

  /** The error shape for a path that may match no route: the message dialect's under /v1/messages, else chat's. */
  errorsFor(path: string): ErrorRenderer {
    return path.startsWith('/v1/messages') ? this.#errorShapes.messages : this.#errorShapes.chat;
  }
}
