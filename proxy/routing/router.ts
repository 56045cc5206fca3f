import type { IncomingHttpHeaders } from 'node:http';
import type { Dialect, ErrorRenderer } from '../../core/dialect.js';
import { apiFamilyOf } from './models.js';
import type { ApiFamily, ResourceRoute, Route, RouteKind } from '../../core/route.js';

export type { Route, RouteKind };

/** The routes that answer for the node, not for a dialect (spec section 4); the dialects declare theirs. */
const NODE_ROUTES: ReadonlyArray<{ method: Route['method']; path: string; kind: RouteKind }> = [
  { method: 'GET', path: '/v1/models', kind: 'models' },
  // GET /v1/models/{id} is matched apart (modelRoute): its id is the rest of the path, its errors the caller's.
  // The caller's own caps and their use (issue #28), for a script holding the key.
  { method: 'GET', path: '/v1/me/caps', kind: 'caps' },
  { method: 'GET', path: '/health', kind: 'health' },
  { method: 'GET', path: '/ready', kind: 'ready' },
];

/** `GET /v1/models/{id}`: the rest of the path, percent-decoded, is the id, so `Qwen/Qwen3-8B` matches as sent raw or as `Qwen%2FQwen3-8B`. */
const MODEL_PREFIX = '/v1/models/';

/** The segment of a resource route's path that stands for an id. */
const ID_SEGMENT = '{id}';

export type RouteMatch =
  | {
      found: true;
      route: Route;
      /** The id the path names: a `GET /v1/models/{id}`'s model, a resource route's `{id}`; empty on every other route. */
      pathId: string;
    }
  | { found: false; reason: 'path' | 'method'; errors: ErrorRenderer };

/**
 * The routes of the node: each dialect's, as it declares them (its error shape with them), and the node's own,
 * which answer in the default dialect's shape (`GET /v1/models/{id}` in the caller's family's).
 */
export class Router {
  readonly #byPath = new Map<string, Route[]>();
  /** The dialects' route paths, longest first: an unknown path under one answers in its dialect's shape. */
  readonly #prefixes: Array<{ path: string; errors: ErrorRenderer }> = [];
  readonly #nodeDialect: Dialect;
  readonly #modelRoutes: Record<ApiFamily, Route>;
  /** The resource routes whose path has an `{id}` segment: matched segment by segment. */
  readonly #patterns: Array<{ segments: readonly string[]; routes: Route[] }> = [];

  /**
   * `nodeDialect`: the dialect whose error shape (and metrics label) the node's own routes carry; `resources`:
   * the routes of the APIs served beside the generations (the batch APIs), each in its family's error shape.
   */
  constructor(dialects: readonly Dialect[], nodeDialect: Dialect, resources: readonly ResourceRoute[] = []) {
    this.#nodeDialect = nodeDialect;
    for (const dialect of dialects)
      for (const declared of dialect.routes) {
        this.#add({ ...declared, dialect, errors: dialect });
        this.#prefixes.push({ path: declared.path, errors: dialect });
      }
    this.#prefixes.sort((a, b) => b.path.length - a.path.length);
    for (const route of NODE_ROUTES) this.#add({ ...route, dialect: nodeDialect, errors: nodeDialect });
    const modelRoute = (family: ApiFamily): Route => ({
      method: 'GET',
      path: `${MODEL_PREFIX}{id}`,
      kind: 'model',
      dialect: nodeDialect,
      errors: dialects.find((dialect) => dialect.family === family) ?? nodeDialect,
    });
    this.#modelRoutes = { openai: modelRoute('openai'), anthropic: modelRoute('anthropic') };
    for (const resource of resources) {
      const dialect = dialects.find((candidate) => candidate.family === resource.family) ?? nodeDialect;
      const route: Route = {
        method: resource.method,
        path: resource.path,
        kind: 'resource',
        operation: resource.operation,
        dialect,
        errors: dialect,
      };
      if (!resource.path.includes(ID_SEGMENT)) {
        this.#add(route);
        continue;
      }
      const segments = resource.path.split('/');
      const pattern = this.#patterns.find((known) => known.segments.join('/') === resource.path);
      if (pattern === undefined) this.#patterns.push({ segments, routes: [route] });
      else pattern.routes.push(route);
    }
  }

  #add(route: Route): void {
    const routes = this.#byPath.get(route.path) ?? [];
    routes.push(route);
    this.#byPath.set(route.path, routes);
  }

  /**
   * Finds the route for a request line; the query string (e.g. `?beta=true`) is ignored. The headers
   * pick the error shape of `GET /v1/models/{id}`: Anthropic's for an Anthropic caller, else chat's.
   */
  match(method: string, url: string, headers: IncomingHttpHeaders = {}): RouteMatch {
    const queryAt = url.indexOf('?');
    const path = queryAt === -1 ? url : url.slice(0, queryAt);
    if (path.startsWith(MODEL_PREFIX) && path.length > MODEL_PREFIX.length) {
      const route = this.#modelRoutes[apiFamilyOf(headers)];
      if (method !== 'GET') return { found: false, reason: 'method', errors: route.errors };
      return { found: true, route, pathId: decodedId(path.slice(MODEL_PREFIX.length)) };
    }
    let routes = this.#byPath.get(path);
    let pathId = '';
    if (routes === undefined) {
      const matched = this.#matchPattern(path);
      if (matched === undefined) return { found: false, reason: 'path', errors: this.errorsFor(path) };
      ({ routes, pathId } = matched);
    }
    const route = routes.find((candidate) => candidate.method === method);
    if (route === undefined) return { found: false, reason: 'method', errors: routes[0]!.errors };
    return { found: true, route, pathId };
  }

  /** The resource routes whose pattern the path fits, and the segment in the place of `{id}`. */
  #matchPattern(path: string): { routes: Route[]; pathId: string } | undefined {
    const segments = path.split('/');
    for (const pattern of this.#patterns) {
      if (pattern.segments.length !== segments.length) continue;
      let pathId: string | undefined;
      const fits = pattern.segments.every((expected, i) => {
        if (expected !== ID_SEGMENT) return expected === segments[i];
        pathId = decodedId(segments[i]!);
        return pathId !== '';
      });
      if (fits && pathId !== undefined) return { routes: pattern.routes, pathId };
    }
    return undefined;
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
    return { found: true, route, pathId: '' };
  }

  /** The error shape for a path that may match no route: that of the dialect whose route it extends, else the node's. */
  errorsFor(path: string): ErrorRenderer {
    return this.#prefixes.find((prefix) => path.startsWith(prefix.path))?.errors ?? this.#nodeDialect;
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
