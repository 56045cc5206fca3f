import type { IncomingHttpHeaders } from 'node:http';
import type { Dialect, DialectName, ErrorRenderer } from './dialect.js';
import { modelsDialectOf } from './models.js';

export type RouteKind = 'generate' | 'count_tokens' | 'models' | 'model' | 'health' | 'ready';

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
  // GET /v1/models/{id} is matched apart (modelRoute): its id is the rest of the path, its errors the caller's.
  { method: 'GET', path: '/health', kind: 'health', dialect: 'chat', errorShape: 'chat' },
  { method: 'GET', path: '/ready', kind: 'ready', dialect: 'chat', errorShape: 'chat' },
];

/** `GET /v1/models/{id}`: the rest of the path, percent-decoded, is the id, so `Qwen/Qwen3-8B` matches as sent raw or as `Qwen%2FQwen3-8B`. */
const MODEL_PREFIX = '/v1/models/';

export type RouteMatch =
  | {
      found: true;
      route: Route;
      /** The id a `GET /v1/models/{id}` names; empty on every other route. */
      modelId: string;
    }
  | { found: false; reason: 'path' | 'method'; errors: ErrorRenderer };

export class Router {
  readonly #byPath = new Map<string, Route[]>();
  readonly #errorShapes: Record<DialectName, ErrorRenderer>;
  readonly #modelRoutes: Record<'chat' | 'messages', Route>;

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
    const modelRoute = (errorShape: 'chat' | 'messages'): Route => ({
      method: 'GET',
      path: `${MODEL_PREFIX}{id}`,
      kind: 'model',
      dialect: dialects.chat,
      errors: errorShapes[errorShape],
    });
    this.#modelRoutes = { chat: modelRoute('chat'), messages: modelRoute('messages') };
  }

  /**
   * Finds the route for a request line; the query string (e.g. `?beta=true`) is ignored. The headers
   * pick the error shape of `GET /v1/models/{id}`: Anthropic's for an Anthropic caller, else chat's.
   */
  match(method: string, url: string, headers: IncomingHttpHeaders = {}): RouteMatch {
    const queryAt = url.indexOf('?');
    const path = queryAt === -1 ? url : url.slice(0, queryAt);
    if (path.startsWith(MODEL_PREFIX) && path.length > MODEL_PREFIX.length) {
      const route = this.#modelRoutes[modelsDialectOf(headers) === 'anthropic' ? 'messages' : 'chat'];
      if (method !== 'GET') return { found: false, reason: 'method', errors: route.errors };
      return { found: true, route, modelId: decodedId(path.slice(MODEL_PREFIX.length)) };
    }
    const routes = this.#byPath.get(path);
    if (routes === undefined) return { found: false, reason: 'path', errors: this.errorsFor(path) };
    const route = routes.find((candidate) => candidate.method === method);
    if (route === undefined) return { found: false, reason: 'method', errors: routes[0]!.errors };
    return { found: true, route, modelId: '' };
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
    return { found: true, route, modelId: '' };
  }

  /** The error shape for a path that may match no route: the message dialect's under /v1/messages, else chat's. */
  errorsFor(path: string): ErrorRenderer {
    return path.startsWith('/v1/messages') ? this.#errorShapes.messages : this.#errorShapes.chat;
  }
}

/** A model id from the path; a malformed percent-escape is left as sent (no model has such an id: a 404, not a 500). */
function decodedId(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
