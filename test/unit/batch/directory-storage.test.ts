// File storage in a directory (batch/storage/directory-storage.ts): one file per object, written whole or not at
// all, every key inside the root.
import { mkdtempSync } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import t from 'tap';
import { DirectoryStorage } from '../../../batch/storage/directory-storage.js';

const root = mkdtempSync(join(tmpdir(), 'gateway-storage-'));
const storage = new DirectoryStorage(root);
t.teardown(() => rm(root, { recursive: true, force: true }));

async function* chunksOf(...texts: string[]): AsyncGenerator<Uint8Array> {
  for (const text of texts) yield Buffer.from(text, 'utf8');
}
/** Yields `text`, then fails: an upload cut off. */
async function* failingAfter(text: string): AsyncGenerator<Uint8Array> {
  yield Buffer.from(text, 'utf8');
  throw new Error('the upload was cut off');
}
const readAll = async (stream: Readable): Promise<string> => {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
};

t.test('write returns the size in bytes; read and readRange give the bytes back', async (t) => {
  const size = await storage.write('files/org_1/file-a.jsonl', chunksOf('{"a":"é"}\n', '{"b":2}\n'));
  t.equal(size, 19);
  t.equal(await readAll(storage.read('files/org_1/file-a.jsonl')), '{"a":"é"}\n{"b":2}\n');
  t.equal((await storage.readRange('files/org_1/file-a.jsonl', 11, 7)).toString('utf8'), '{"b":2}');
  t.equal(
    (await storage.readRange('files/org_1/file-a.jsonl', 16, 100)).toString('utf8'),
    '2}\n',
    'no more than there is',
  );
});

t.test('a write replaces the object', async (t) => {
  await storage.write('files/org_1/file-b.jsonl', chunksOf('old'));
  t.equal(await storage.write('files/org_1/file-b.jsonl', chunksOf('new!')), 4);
  t.equal(await readAll(storage.read('files/org_1/file-b.jsonl')), 'new!');
});

t.test('a write whose source fails leaves no object and no partial file', async (t) => {
  await t.rejects(storage.write('files/org_2/file-c.jsonl', failingAfter('{"a":1}\n')), {
    message: 'the upload was cut off',
  });
  t.same(await readdir(join(root, 'files/org_2')), [], 'nothing in the directory');
  await t.rejects(readAll(storage.read('files/org_2/file-c.jsonl')), { code: 'ENOENT' });
});

t.test('a write whose source fails leaves the object it would have replaced whole', async (t) => {
  await storage.write('files/org_3/file-d.jsonl', chunksOf('kept'));
  await t.rejects(storage.write('files/org_3/file-d.jsonl', failingAfter('lost')));
  t.equal(await readAll(storage.read('files/org_3/file-d.jsonl')), 'kept');
  t.same(await readdir(join(root, 'files/org_3')), ['file-d.jsonl']);
});

t.test('delete removes the object; deleting a missing one is not an error', async (t) => {
  await storage.write('files/org_4/file-e.jsonl', chunksOf('x'));
  await storage.delete('files/org_4/file-e.jsonl');
  await t.rejects(readAll(storage.read('files/org_4/file-e.jsonl')), { code: 'ENOENT' });
  await t.resolves(storage.delete('files/org_4/file-e.jsonl'));
  await t.resolves(storage.delete('never/written.jsonl'));
});

t.test('a key outside the root throws, whatever the operation', async (t) => {
  const outside = /outside the storage/;
  for (const key of ['../x', 'files/../../x', '', '.'])
    await t.rejects(storage.write(key, chunksOf('x')), outside, `write ${JSON.stringify(key)}`);
  t.throws(() => storage.read('../x'), outside);
  await t.rejects(storage.readRange('../x', 0, 1), outside);
  await t.rejects(storage.delete('../x'), outside);
});
