// The local provider's documents: a folder of Markdown files (`*.md`, subfolders included), each opening
// with YAML front matter that gives its `url` (http or https) and `title`, and optionally its `date`
// (YYYY-MM-DD). A file that breaks these rules stops the start, naming the file.
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { parse } from 'yaml';
import { ConfigError } from '../../../config/errors.js';
import { packageRoot } from '../../../config/package-root.js';

export interface CorpusDocument {
  url: string;
  title: string;
  /** The page's date (UTC midnight), from `date:`. */
  date?: Date;
  /** The Markdown after the front matter, trimmed. */
  text: string;
}

/** The demo corpus shipped with the gateway, found from the package root (source tree or dist/ alike). */
export const DEMO_CORPUS_DIR = join(packageRoot(), 'plugins', 'search', 'corpus');

const FRONT_MATTER = /^\uFEFF?---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

/** Reads every document of the folder, in path order. */
export async function loadCorpus(dir: string): Promise<CorpusDocument[]> {
  let entries: string[];
  try {
    entries = await readdir(dir, { recursive: true, encoding: 'utf8' });
  } catch {
    throw new ConfigError(`search corpus ${dir}: cannot read the folder`);
  }
  const files = entries.filter((entry) => entry.endsWith('.md')).sort();
  if (files.length === 0) throw new ConfigError(`search corpus ${dir}: no .md documents`);
  const documents: CorpusDocument[] = [];
  const seen = new Map<string, string>();
  for (const file of files) {
    const path = join(dir, file);
    const document = parseDocument(await readFile(path, 'utf8'), path);
    const earlier = seen.get(document.url);
    if (earlier !== undefined)
      throw new ConfigError(`${path}: url ${document.url} is also the url of ${relative(dir, earlier)}`);
    seen.set(document.url, path);
    documents.push(document);
  }
  return documents;
}

/** One Markdown file with front matter → a document. */
export function parseDocument(source: string, path: string): CorpusDocument {
  const match = FRONT_MATTER.exec(source);
  if (match === null) throw new ConfigError(`${path}: no front matter (a --- block with url: and title:) at the top`);
  let meta: unknown;
  try {
    meta = parse(match[1]!);
  } catch (error) {
    throw new ConfigError(
      `${path}: invalid front matter: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`,
    );
  }
  const { url, title, date } = (meta ?? {}) as Record<string, unknown>;
  if (typeof url !== 'string' || !/^https?:\/\/[^\s/]+/.test(url) || !URL.canParse(url))
    throw new ConfigError(`${path}: front matter needs url: an http(s) URL`);
  if (typeof title !== 'string' || title.trim() === '') throw new ConfigError(`${path}: front matter needs title:`);
  const document: CorpusDocument = { url, title: title.trim(), text: source.slice(match[0].length).trim() };
  if (date !== undefined && date !== null) document.date = parseDate(date, path);
  return document;
}

function parseDate(value: unknown, path: string): Date {
  const date =
    value instanceof Date
      ? value
      : typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value.trim())
        ? new Date(`${value.trim()}T00:00:00Z`)
        : undefined;
  if (date === undefined || Number.isNaN(date.getTime()))
    throw new ConfigError(`${path}: front matter date: must be YYYY-MM-DD`);
  return date;
}
