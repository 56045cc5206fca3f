// Golden streams (docs/architecture.md, "The test kit"): each case in test/golden/ holds a client's request in each
// dialect, the canonical events the upstream sent, and the frames each dialect's stream encoder wrote for them; the
// encoders must write exactly those frames again. `GOLDEN_UPDATE=1` re-records the frames files from what the encoders
// write now: read the diff before committing it.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import t from 'tap';
import type { CanonicalEvent } from '../../../core/canonical.js';
import type { EncodeContext, WireProfile } from '../../../core/dialect.js';
import { ThinkingSigner } from '../../../core/thinking-signer.js';
import { createDialects, type DialectName } from '../../../dialects/registry.js';
import { encodeAll, type Frame } from '../../kit/frames.js';

const GOLDEN = new URL('../../golden/', import.meta.url);
const UPDATE = process.env.GOLDEN_UPDATE === '1';

const dialects = createDialects({
  modelId: 'qwen3-8b',
  modelAliases: [],
  contextTokens: 32768,
  messagesMaxTokens: 8000,
  responsesFunctionTools: true,
});

/** Each dialect's recorded stream, one per profile where they differ (the messages dialect has one shape in both). */
const OUTPUTS: readonly { dialect: DialectName; wire: WireProfile; label: string; file: string }[] = [
  { dialect: 'chat', wire: 'spec', label: 'chat, spec profile', file: 'chat.spec.frames.jsonl' },
  { dialect: 'chat', wire: 'openai', label: 'chat, openai profile', file: 'chat.openai.frames.jsonl' },
  { dialect: 'messages', wire: 'spec', label: 'messages', file: 'messages.frames.jsonl' },
  { dialect: 'responses', wire: 'spec', label: 'responses, spec profile', file: 'responses.spec.frames.jsonl' },
  { dialect: 'responses', wire: 'openai', label: 'responses, openai profile', file: 'responses.openai.frames.jsonl' },
];

/** The exchange every encoder sees: a fixed id, arrival time and signing key, so ids and signatures never vary. */
function contextOf(wire: WireProfile): EncodeContext {
  return {
    id: 'golden',
    created: 1767225600,
    wire,
    thinkingSigner: new ThinkingSigner(Buffer.alloc(32, 7)),
    client: undefined,
    limits: undefined,
  };
}

/** A frame as a golden file holds it: its data parsed where it is JSON (chat's `[DONE]` stays text). */
interface GoldenFrame {
  event: string | null;
  data: unknown;
}

function golden(frame: Frame): GoldenFrame {
  return { event: frame.event, data: completedAtFixed(parsedData(frame.data)) };
}

function parsedData(data: string): unknown {
  try {
    return JSON.parse(data) as unknown;
  } catch {
    return data;
  }
}

/**
 * The one value no encoder takes from its context: the responses dialect's `response.completed_at`, the wall clock's
 * Unix seconds when the response completed. A number there becomes the text `<unix seconds>`; anything else (null
 * while in progress, a missing field) is left as it is, so it still has to match.
 */
function completedAtFixed(data: unknown): unknown {
  const response = (data as { response?: { completed_at?: unknown } } | null)?.response;
  if (typeof response?.completed_at === 'number') response.completed_at = '<unix seconds>';
  return data;
}

function readJsonLines<T>(url: URL): T[] {
  return readFileSync(url, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as T);
}

const cases = readdirSync(GOLDEN, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

t.ok(cases.length > 0, 'there are recorded cases');

for (const name of cases) {
  const dir = new URL(`${name}/`, GOLDEN);
  const upstream = readJsonLines<CanonicalEvent>(new URL('upstream.jsonl', dir));
  const requests = JSON.parse(readFileSync(new URL('requests.json', dir), 'utf8')) as Record<DialectName, unknown>;
  for (const { dialect, wire, label, file } of OUTPUTS) {
    t.test(`${name}: ${label}: the encoder writes the recorded frames`, async (t) => {
      const { echo } = dialects[dialect].decode(requests[dialect]);
      const frames = encodeAll(dialects[dialect].streamEncoder(contextOf(wire), echo), upstream).map(golden);
      const recorded = new URL(file, dir);
      if (UPDATE) writeFileSync(recorded, frames.map((frame) => JSON.stringify(frame) + '\n').join(''));
      if (!existsSync(recorded)) return t.fail(`${name}/${file} is not recorded (GOLDEN_UPDATE=1 records it)`);
      t.strictSame(frames, readJsonLines<GoldenFrame>(recorded));
    });
  }
}
