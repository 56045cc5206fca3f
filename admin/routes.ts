// The admin listener's routes: a method, a path pattern whose groups are URL-decoded parameters, and a
// handler that returns what to answer (the server writes it), so handlers never touch the response.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AdminError } from './errors.js';

export interface RouteRequest {
  req: IncomingMessage;
  /** The pattern's groups, URL-decoded. */
  params: string[];
  query: URLSearchParams;
}

export interface RouteAnswer {
  status: number;
  body?: unknown;
  headers?: Record<string, string | string[]>;
  /** Writes a streamed body (a usage export) after the status and headers, instead of `body` as JSON. */
  write?: (res: ServerResponse) => Promise<void>;
}

export interface AdminRoute {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Anchored, e.g. /^\/admin\/v1\/orgs\/([^/]+)$/. */
  path: RegExp;
  handle(request: RouteRequest): Promise<RouteAnswer>;
}

export interface AdminRouteMatch {
  route: AdminRoute;
  params: string[];
}

/**
 * The route for a method and path; a 404 if no pattern matches the path, a 405 if none takes the
 * method (its `allow` lists the methods that would be).
 */
export function matchRoute(routes: readonly AdminRoute[], method: string, pathname: string): AdminRouteMatch {
  const allowed: string[] = [];
  for (const route of routes) {
    const match = route.path.exec(pathname);
    if (match === null) continue;
    if (route.method !== method) {
      allowed.push(route.method);
      continue;
    }
    return { route, params: match.slice(1).map(decodeParam) };
  }
  if (allowed.length > 0)
    throw new AdminError('method_not_allowed', `${method} is not allowed on ${pathname}`, undefined, {
      allow: allowed.join(', '),
    });
  throw new AdminError('not_found', `no route ${pathname}`);
}

function decodeParam(text: string | undefined): string {
  try {
    return decodeURIComponent(text ?? '');
  } catch {
    throw new AdminError('invalid_request', `'${text}' is not a valid URL-encoded path segment`, 'path');
  }
}
