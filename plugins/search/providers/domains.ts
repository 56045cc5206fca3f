// Domain filters for search results, as the message dialect's `allowed_domains` / `blocked_domains` and
// the responses dialect's `filters` mean them: an entry covers its host and every subdomain, matching is
// case-insensitive, a scheme or a leading `*.` in an entry is ignored, and an entry with a path
// (`example.com/blog`) also needs the URL's path to start with it, on a segment boundary. A URL that does
// not parse, or is not http(s), passes no filter.

interface DomainRule {
  host: string;
  /** Lower-case path prefix without a trailing slash, or '' for the whole host. */
  path: string;
}

/** Compiles the lists once; the returned test is what runs per result. Empty or absent lists restrict nothing. */
export function domainFilter(allowed?: readonly string[], blocked?: readonly string[]): (url: string) => boolean {
  const allow = (allowed ?? []).map(parseRule).filter((rule) => rule !== undefined);
  const block = (blocked ?? []).map(parseRule).filter((rule) => rule !== undefined);
  return (url) => {
    const target = parseUrl(url);
    if (target === undefined) return false;
    if (allow.length > 0 && !allow.some((rule) => covers(rule, target))) return false;
    return !block.some((rule) => covers(rule, target));
  };
}

/** True when `url` passes both lists (see domainFilter); for many URLs, compile the lists once with domainFilter. */
export function matchesDomains(url: string, allowed?: readonly string[], blocked?: readonly string[]): boolean {
  return domainFilter(allowed, blocked)(url);
}

function parseRule(entry: string): DomainRule | undefined {
  const text = entry
    .trim()
    .toLowerCase()
    .replace(/^[a-z][a-z0-9+.-]*:\/\//, '')
    .replace(/^\*\./, '')
    .replace(/^\.+/, '');
  const slash = text.indexOf('/');
  const host = (slash === -1 ? text : text.slice(0, slash)).replace(/:\d+$/, '').replace(/\.$/, '');
  if (host === '') return undefined;
  const path = slash === -1 ? '' : text.slice(slash).replace(/\/+$/, '');
  return { host, path };
}

function parseUrl(url: string): { host: string; path: string } | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return undefined;
  const host = parsed.hostname.toLowerCase().replace(/\.$/, '');
  if (host === '') return undefined;
  return { host, path: parsed.pathname.toLowerCase() };
}

function covers(rule: DomainRule, target: { host: string; path: string }): boolean {
  if (target.host !== rule.host && !target.host.endsWith('.' + rule.host)) return false;
  if (rule.path === '') return true;
  return target.path === rule.path || target.path.startsWith(rule.path + '/');
}
