// The embedded default provider: a full-text index (MiniSearch, BM25+) over a folder of Markdown documents
// (see corpus.ts), built once when the provider is created, searched in-process, offline. Titles weigh
// more than text; query words of 3+ letters also match as prefixes ("stream" → "streaming") and words of
// 5+ letters tolerate a typo or two; common English words are not indexed, so "what is the weather in
// Lisbon" is a search for "weather lisbon". Domain filters apply inside the search, so a filtered search
// still returns up to maxResults documents; hits scoring under a tenth of the best one are left out (a
// stray match of one common word is noise, not a result). A result's content is the document's text, or for a long
// document its passages that best match the query, up to CONTENT_LIMIT characters.
import MiniSearch, { type SearchResult as IndexHit } from 'minisearch';
import { loadCorpus, type CorpusDocument } from './corpus.js';
import { domainFilter } from './domains.js';
import { SearchError, type SearchProvider, type SearchQuery, type SearchResult } from './provider.js';

export const CONTENT_LIMIT = 4000;
/** Hits below this share of the best hit's score are dropped. */
const MIN_RELATIVE_SCORE = 0.1;

const STOP_WORDS = new Set(
  (
    'a about an and are as at be been but by can could did do does for from had has have how i if in into is it its ' +
    'me my no not of on or our should so than that the their them then there these they this to was we were what ' +
    'when where which who why will with would you your'
  ).split(' '),
);

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

const tokenize = MiniSearch.getDefault('tokenize') as (text: string) => string[];

function processTerm(term: string): string | null {
  const word = term.toLowerCase().replace(/'s$/, '');
  return word === '' || STOP_WORDS.has(word) ? null : word;
}

/** Reads the folder and builds the index; a bad document fails here, at start. */
export async function createLocalProvider(corpusDir: string): Promise<SearchProvider> {
  const documents = await loadCorpus(corpusDir);
  const index = new MiniSearch<{ id: number; title: string; text: string }>({
    fields: ['title', 'text'],
    processTerm,
    searchOptions: {
      boost: { title: 3 },
      prefix: (term) => term.length >= 3,
      fuzzy: (term) => (term.length >= 5 ? 0.2 : false),
    },
  });
  index.addAll(documents.map((document, id) => ({ id, title: document.title, text: document.text })));

  return {
    name: 'local',
    async search(query: SearchQuery): Promise<SearchResult[]> {
      if (query.signal.aborted) throw new SearchError('unavailable', 'local: the search was aborted');
      const allowed = domainFilter(query.allowedDomains, query.blockedDomains);
      const hits = index.search(query.query, { filter: (hit) => allowed(documents[hit.id as number]!.url) });
      const floor = (hits[0]?.score ?? 0) * MIN_RELATIVE_SCORE;
      return hits
        .filter((hit) => hit.score >= floor)
        .slice(0, Math.max(query.maxResults, 0))
        .map((hit) => toResult(documents[hit.id as number]!, hit));
    },
  };
}

function toResult(document: CorpusDocument, hit: IndexHit): SearchResult {
  const result: SearchResult = {
    url: document.url,
    title: document.title,
    content: bestPassages(document.text, new Set(hit.terms)),
  };
  if (document.date !== undefined)
    result.pageAge = `${MONTHS[document.date.getUTCMonth()]} ${document.date.getUTCDate()}, ${document.date.getUTCFullYear()}`;
  return result;
}

/** The whole text when it fits; else the paragraphs with the most matched terms, in document order. */
export function bestPassages(text: string, terms: ReadonlySet<string>, limit = CONTENT_LIMIT): string {
  if (text.length <= limit) return text;
  const paragraphs = text.split(/\n\s*\n/).map((paragraph, order) => {
    const words = tokenize(paragraph).map(processTerm);
    return {
      paragraph: paragraph.trim(),
      order,
      score: words.filter((word) => word !== null && terms.has(word)).length,
    };
  });
  const ranked = paragraphs
    .filter((candidate) => candidate.paragraph !== '')
    .sort((a, b) => b.score - a.score || a.order - b.order);
  const chosen: typeof paragraphs = [];
  let length = 0;
  for (const candidate of ranked) {
    if (length + candidate.paragraph.length + 2 > limit) continue;
    chosen.push(candidate);
    length += candidate.paragraph.length + 2;
  }
  if (chosen.length === 0) return cutAtWord(ranked[0]?.paragraph ?? text, limit);
  return chosen
    .sort((a, b) => a.order - b.order)
    .map((candidate) => candidate.paragraph)
    .join('\n\n');
}

function cutAtWord(text: string, limit: number): string {
  const cut = text.slice(0, limit - 1);
  const space = cut.lastIndexOf(' ');
  return (space > limit / 2 ? cut.slice(0, space) : cut) + '…';
}
