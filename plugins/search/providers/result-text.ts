// Provider answers turned into SearchResults, and their fields into plain text. Snippets may carry
// HTML (Brave marks the matched words with <strong>) and entities; the model should read plain text,
// and a field of the wrong type reads as absent.

import { domainFilter } from './domains.js';
import type { SearchQuery, SearchResult } from './provider.js';

const ENTITIES: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/** The field as plain text: tags removed, entities decoded, whitespace collapsed; '' when it is not a string. */
export function plainText(value: unknown): string {
  if (typeof value !== 'string') return '';
  return value
    .replace(/<[^>]*>/g, '')
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (entity, name: string) => {
      if (name[0] === '#') {
        const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
        return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : entity;
      }
      return ENTITIES[name.toLowerCase()] ?? entity;
    })
    .replace(/\s+/g, ' ')
    .trim();
}

/** A non-empty string field as it is, else undefined (dates and ages: passed on as the provider says them). */
export function optionalText(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

/**
 * A provider's result objects as SearchResults: an item without a URL is skipped, a missing title
 * reads as the URL; the provider says which of an item's fields are its text and its age.
 */
export function toSearchResults(
  items: unknown,
  read: { content(item: Record<string, unknown>): string; pageAge(item: Record<string, unknown>): string | undefined },
): SearchResult[] {
  if (!Array.isArray(items)) return [];
  const mapped: SearchResult[] = [];
  for (const item of items as unknown[]) {
    if (typeof item !== 'object' || item === null) continue;
    const record = item as Record<string, unknown>;
    const url = optionalText(record.url);
    if (url === undefined) continue;
    const pageAge = read.pageAge(record);
    mapped.push({
      url,
      title: plainText(record.title) || url,
      content: read.content(record),
      ...(pageAge !== undefined ? { pageAge } : {}),
    });
  }
  return mapped;
}

/** The results the query allows (its domain lists), at most its maxResults. */
export function withinQuery(results: readonly SearchResult[], query: SearchQuery): SearchResult[] {
  const allowed = domainFilter(query.allowedDomains, query.blockedDomains);
  return results.filter((result) => allowed(result.url)).slice(0, Math.max(query.maxResults, 0));
}
