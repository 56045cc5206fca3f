// The key that keeps a conversation on one replica (proxy/upstream/affinity-key.ts).
import t from 'tap';
import type { ChatRequest } from '../../../../core/canonical.js';
import { affinityKey } from '../../../../proxy/upstream/affinity-key.js';

const turn1: ChatRequest = {
  model: 'm',
  messages: [
    { role: 'system', content: 'You are a coding agent.' },
    { role: 'user', content: 'Fix the bug.' },
  ],
  tools: [{ type: 'function', function: { name: 'read_file' } }],
};
const turn2: ChatRequest = {
  ...turn1,
  messages: [...turn1.messages, { role: 'assistant', content: 'Done.' }, { role: 'user', content: 'Now test it.' }],
};

t.test('the client’s prompt_cache_key (canonical conversation_key) comes first', async (t) => {
  const request = { ...turn1, gateway: { conversation_key: 'conv-1' } };
  t.equal(affinityKey(request, { session_id: 's' }, 'org_1'), 'org_1\nkey:conv-1');
});

t.test('then a session header agents send, in the documented order', async (t) => {
  t.equal(affinityKey(turn1, { session_id: 'codex-1', 'x-session-id': 'x' }, 'org_1'), 'org_1\nsession_id:codex-1');
  t.equal(affinityKey(turn1, { 'x-claude-code-session-id': 'cc-1' }, 'org_1'), 'org_1\nx-claude-code-session-id:cc-1');
  t.equal(affinityKey(turn1, { 'thread-id': 't-1' }, 'org_1'), 'org_1\nthread-id:t-1');
});

t.test('else the conversation’s opening: every later turn of it has the same key', async (t) => {
  const key = affinityKey(turn1, {}, 'org_1');
  t.ok(key?.startsWith('org_1\nopening:'));
  t.equal(affinityKey(turn2, {}, 'org_1'), key);
});

t.test('conversations that open differently have different keys (system prompt, first message, tools)', async (t) => {
  const key = affinityKey(turn1, {}, 'org_1');
  const otherSystem = { ...turn1, messages: [{ role: 'system' as const, content: 'Other.' }, turn1.messages[1]!] };
  t.not(affinityKey(otherSystem, {}, 'org_1'), key);
  const otherQuestion = { ...turn1, messages: [turn1.messages[0]!, { role: 'user' as const, content: 'Other.' }] };
  t.not(affinityKey(otherQuestion, {}, 'org_1'), key);
  t.not(affinityKey({ ...turn1, tools: [] }, {}, 'org_1'), key);
});

t.test('keys are per organization: two callers sending the same never share one', async (t) => {
  t.not(affinityKey(turn1, { session_id: 's' }, 'org_1'), affinityKey(turn1, { session_id: 's' }, 'org_2'));
  t.not(affinityKey(turn1, {}, 'org_1'), affinityKey(turn1, {}, 'org_2'));
});

t.test('a conversation with no user message has no key (it goes by load)', async (t) => {
  t.equal(affinityKey({ model: 'm', messages: [{ role: 'system', content: 's' }] }, {}, 'org_1'), undefined);
});

t.test('only the first 4,096 characters of a part are read', async (t) => {
  const long = (tail: string): ChatRequest => ({
    model: 'm',
    messages: [{ role: 'user', content: 'a'.repeat(5000) + tail }],
  });
  t.equal(affinityKey(long('x'), {}, 'o'), affinityKey(long('y'), {}, 'o'));
  t.equal(affinityKey(long('x'), {}, 'o')!.length, 'o\nopening:'.length + 4096);
});

t.test('a message of text parts is read by its parts’ text, up to the same 4,096 characters', async (t) => {
  const parts = (tail: string): ChatRequest => ({
    model: 'm',
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'a'.repeat(5000) },
          { type: 'text', text: tail },
        ],
      },
    ],
  });
  t.equal(affinityKey(parts('x'), {}, 'o'), affinityKey(parts('y'), {}, 'o'));
  const short = (text: string): ChatRequest => ({
    model: 'm',
    messages: [{ role: 'user', content: [{ type: 'text', text }] }],
  });
  t.not(affinityKey(short('x'), {}, 'o'), affinityKey(short('y'), {}, 'o'));
});
