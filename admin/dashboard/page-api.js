// The pages' one way to their API: JSON in and out, the session cookie, the session's CSRF token on
// every change (x-csrf-token), and a refusal thrown as an ApiError with the API's status, code, message
// and field.

export class ApiError extends Error {
  /** `error`: the answer's `{code, message, field?}`, when it has one; `field` is the request field it is about. */
  constructor(status, error) {
    super(error?.message ?? `HTTP ${status}`);
    this.status = status;
    this.code = error?.code;
    this.field = error?.field;
  }
}

/** `csrfToken()`: the session's token while there is one, else null. Returns `api(method, path, body?)`. */
export function pageApi(csrfToken) {
  return async function api(method, path, body) {
    const headers = { accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const token = method === 'GET' ? null : csrfToken();
    if (token !== null) headers['x-csrf-token'] = token;
    const response = await fetch(path, {
      method,
      headers,
      credentials: 'same-origin',
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const data = response.status === 204 ? null : await response.json().catch(() => null);
    if (!response.ok) throw new ApiError(response.status, data?.error);
    return data;
  };
}
