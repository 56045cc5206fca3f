// OpenAI's Files API for batches: upload (multipart/form-data, `purpose` and `file`), retrieve, list, content,
// delete. An upload is written to storage as it arrives, each line checked on the way (batch input lines:
// input-line.ts) and the size and line limits counted, so a bad or oversize file is refused with a 400 that
// names the line, and nothing of it is kept. Files belong to the caller's organization: another's are not found.
import busboy from 'busboy';
import type { Readable } from 'node:stream';
import type { JsonObject } from '../core/canonical.js';
import { GatewayError } from '../core/errors.js';
import type { Exchange } from '../core/exchange.js';
import { printable } from '../core/printable.js';
import type { LiveExchange } from '../proxy/exchange/exchange.js';
import type { Door } from '../proxy/exchange/run.js';
import type { FileRecord } from '../store/batch-files.js';
import type { FilePurpose } from '../store/batch-schema.js';
import { newId } from '../store/ids.js';
import { callerOf, limitOf, queryOf, seconds, unknownCursor, type BatchContext } from './batch-context.js';
import { checkOpenAiLine, type LineChecks } from './input-line.js';
import { JsonlSplitter } from './jsonl-lines.js';
import { fileObjectKey } from './storage-keys.js';

const DAY_MS = 86_400_000;

/** The File object of the API. */
export function fileObject(file: FileRecord): JsonObject {
  return {
    id: file.id,
    object: 'file',
    bytes: file.bytes,
    created_at: seconds(file.createdAt),
    expires_at: seconds(file.expiresAt),
    filename: file.filename,
    purpose: file.purpose,
    status: 'processed',
    status_details: null,
  };
}

/** The caller's file, or a 404 naming it. */
async function callersFile(context: BatchContext, orgId: string, fileId: string): Promise<FileRecord> {
  const file = await context.store.batchFiles.get(orgId, fileId);
  if (file === undefined)
    throw new GatewayError('GW_ERR_RESOURCE_NOT_FOUND', `No such File object: ${printable(fileId)}.`, 'file_id');
  return file;
}

/** POST /v1/files */
export async function createFile(context: BatchContext, exchange: LiveExchange, door: Door): Promise<void> {
  const { orgId } = callerOf(exchange);
  const limits = context.limits;
  const usage = await context.store.batchFiles.usage(orgId);
  if (usage.files >= limits.max_files_per_org)
    throw new GatewayError(
      'GW_ERR_QUOTA_EXCEEDED',
      `Your organization has ${usage.files} files, the most it may keep (${limits.max_files_per_org}); delete some first.`,
    );
  const id = newId('file');
  const key = fileObjectKey(orgId, id);
  const upload = await receiveUpload(context, exchange, door.bodyStream(exchange), key);
  if (upload.purpose !== 'batch') {
    await context.storage.delete(key);
    throw new GatewayError(
      'GW_ERR_REQUEST_INVALID',
      `purpose must be 'batch' (this gateway keeps files for batches only), not '${printable(upload.purpose ?? '')}'.`,
      'purpose',
    );
  }
  const now = context.now();
  const file: FileRecord = {
    id,
    orgId,
    purpose: 'batch',
    filename: upload.filename,
    bytes: upload.bytes,
    lines: upload.lines,
    createdAt: now,
    expiresAt: now + limits.retention_days * DAY_MS,
  };
  await context.store.batchFiles.add(file);
  door.sendJson(200, exchange.responseHeaders, fileObject(file));
}

/** GET /v1/files/{id} */
export async function retrieveFile(
  context: BatchContext,
  exchange: Exchange,
  door: Door,
  fileId: string,
): Promise<void> {
  const file = await callersFile(context, callerOf(exchange).orgId, fileId);
  door.sendJson(200, exchange.responseHeaders, fileObject(file));
}

/** GET /v1/files/{id}/content */
export async function fileContent(
  context: BatchContext,
  exchange: Exchange,
  door: Door,
  fileId: string,
): Promise<void> {
  const file = await callersFile(context, callerOf(exchange).orgId, fileId);
  await door.sendBytes(
    200,
    { ...exchange.responseHeaders, 'content-type': 'application/octet-stream', 'content-length': String(file.bytes) },
    context.storage.read(fileObjectKey(file.orgId, file.id)),
  );
}

/** DELETE /v1/files/{id}: refused while an unfinished batch reads it. */
export async function deleteFile(context: BatchContext, exchange: Exchange, door: Door, fileId: string): Promise<void> {
  const file = await callersFile(context, callerOf(exchange).orgId, fileId);
  if (await context.store.batches.readsFile(file.orgId, file.id))
    throw new GatewayError(
      'GW_ERR_REQUEST_INVALID',
      `File ${file.id} is the input of a batch that has not ended; cancel the batch or wait for its end.`,
      'file_id',
    );
  await context.storage.delete(fileObjectKey(file.orgId, file.id));
  await context.store.batchFiles.delete(file.orgId, file.id);
  door.sendJson(200, exchange.responseHeaders, { id: file.id, object: 'file', deleted: true });
}

/** GET /v1/files: `purpose`, `limit` (1..10,000), `order` (asc, desc: the default), `after`. */
export async function listFiles(context: BatchContext, exchange: Exchange, door: Door): Promise<void> {
  const query = queryOf(exchange);
  const limit = limitOf(query, 'limit', 10_000, 10_000);
  const order = query.get('order') ?? 'desc';
  if (order !== 'asc' && order !== 'desc')
    throw new GatewayError('GW_ERR_REQUEST_INVALID', "order must be 'asc' or 'desc'.", 'order');
  const purpose = query.get('purpose');
  if (purpose !== null && purpose !== 'batch' && purpose !== 'batch_output')
    throw new GatewayError('GW_ERR_REQUEST_INVALID', "purpose must be 'batch' or 'batch_output'.", 'purpose');
  const after = query.get('after') ?? undefined;
  const files = await context.store.batchFiles.list(
    callerOf(exchange).orgId,
    { limit, order, after },
    (purpose ?? undefined) as FilePurpose | undefined,
  );
  if (files === undefined) throw unknownCursor('after', after!);
  const page = files.slice(0, limit);
  door.sendJson(200, exchange.responseHeaders, {
    object: 'list',
    data: page.map(fileObject),
    first_id: page[0]?.id ?? null,
    last_id: page.at(-1)?.id ?? null,
    has_more: files.length > limit,
  });
}

interface Upload {
  purpose: string | undefined;
  filename: string;
  bytes: number;
  lines: number;
}

/** Reads the multipart body: its `purpose` field, and its `file` written to `key` with every line checked. */
async function receiveUpload(context: BatchContext, exchange: Exchange, body: Readable, key: string): Promise<Upload> {
  const limits = context.limits;
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: exchange.req.headers,
      limits: { files: 1, fields: 16, fileSize: limits.max_file_bytes + 1 },
    });
  } catch {
    throw new GatewayError(
      'GW_ERR_REQUEST_UNSUPPORTED_MEDIA_TYPE',
      'Upload a file as multipart/form-data with the fields purpose and file.',
    );
  }
  let purpose: string | undefined;
  let written: Promise<{ filename: string; bytes: number; lines: number }> | undefined;
  const parsed = new Promise<void>((resolve, reject) => {
    parser.on('field', (name, value) => {
      if (name === 'purpose') purpose = value;
    });
    parser.on('file', (name, stream, info) => {
      if (name !== 'file') {
        stream.resume();
        return;
      }
      written = writeChecked(context, stream, key).then((counted) => ({
        ...counted,
        filename: info.filename ?? 'upload.jsonl',
      }));
      // A refused file is the upload's answer at once (the rest of the body is read and dropped meanwhile).
      written.catch(reject);
    });
    parser.on('close', resolve);
    parser.on('error', reject);
  });
  body.pipe(parser);
  try {
    await parsed;
  } catch (error) {
    throw malformed(error);
  }
  if (written === undefined)
    throw new GatewayError('GW_ERR_REQUEST_INVALID', 'The upload has no file: send it in the field file.', 'file');
  const file = await written;
  if (file.lines === 0) {
    await context.storage.delete(key);
    throw new GatewayError('GW_ERR_REQUEST_INVALID', 'The file has no lines: a batch needs at least one.', 'file');
  }
  return { purpose, ...file };
}

/** Writes the file to storage as it arrives, checking each line and the limits; on a failure nothing is kept. */
async function writeChecked(
  context: BatchContext,
  stream: Readable,
  key: string,
): Promise<{ bytes: number; lines: number }> {
  const limits = context.limits;
  const checks: LineChecks = { seen: new Set(), servesModel: context.servesModel };
  const splitter = new JsonlSplitter(limits.max_file_bytes);
  let lines = 0;
  let bytes = 0;
  const check = (line: { number: number; text: string }): void => {
    lines += 1;
    if (lines > limits.max_lines)
      throw new GatewayError(
        'GW_ERR_FILE_TOO_LARGE',
        `The file has more than ${limits.max_lines} lines, the most a batch may have.`,
        'file',
      );
    checkOpenAiLine(line.text, line.number, checks, undefined);
  };
  async function* checked(): AsyncGenerator<Uint8Array> {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      bytes += chunk.length;
      if (bytes > limits.max_file_bytes)
        throw new GatewayError(
          'GW_ERR_FILE_TOO_LARGE',
          `The file is larger than ${limits.max_file_bytes} bytes, the most this gateway takes.`,
          'file',
        );
      for (const line of splitter.push(chunk)) check(line);
      yield chunk;
    }
    const last = splitter.end();
    if (last !== undefined) check(last);
  }
  try {
    await context.storage.write(key, checked());
  } catch (error) {
    // Whatever else arrives of the file is read and dropped, so the client can read the answer.
    stream.resume();
    await context.storage.delete(key);
    if (error instanceof GatewayError) throw error;
    throw malformed(error);
  }
  return { bytes, lines };
}

function malformed(error: unknown): GatewayError {
  if (error instanceof GatewayError) return error;
  const reason = error instanceof Error ? error.message : String(error);
  return new GatewayError('GW_ERR_REQUEST_INVALID', `The upload could not be read: ${printable(reason)}.`, 'file');
}
