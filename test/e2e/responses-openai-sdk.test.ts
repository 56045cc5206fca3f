// The responses dialect driven by the real `openai` package (6.x): create, create with stream, and the stream helper, in both profiles.
import OpenAI from 'openai';
import t from 'tap';
import { stackForFile } from '../kit/file-stack.js';
import { forwardHeaders } from '../kit/stack-presets.js';
import { openaiClient, WIRE_PROFILES } from '../kit/openai-client.js';

const MODEL = 'qwen3-8b';

const stack = await stackForFile(t, { yaml: forwardHeaders('x-sim-fault') });

for (const wire of WIRE_PROFILES) {
  const client = (): OpenAI => openaiClient(stack, wire);

  t.test(`[${wire}] responses.create returns the text, a message item and usage`, async (t) => {
    const response = await client().responses.create({
      model: MODEL,
      input: 'echo: Hello there',
      instructions: 'Answer briefly.',
    });
    t.equal(response.object, 'response');
    t.equal(response.model, MODEL);
    t.equal(response.status, 'completed');
    t.equal(response.output_text, 'Hello there');
    t.match(response.id, /^resp_[0-9a-f]{24}$/);
    const item = response.output[0];
    t.equal(item?.type, 'message');
    if (item?.type === 'message') t.same(item.content, [{ type: 'output_text', text: 'Hello there', annotations: [] }]);
    const usage = response.usage!;
    t.ok(usage.input_tokens > 0);
    t.equal(usage.output_tokens, 3, '"Hello there" and the end-of-turn token');
    t.equal(usage.total_tokens, usage.input_tokens + usage.output_tokens);
    if (wire === 'spec') t.match(response, { created: response.created_at, finish_reason: 'stop' });
  });

  t.test(`[${wire}] input items with input_text parts and a developer message`, async (t) => {
    const response = await client().responses.create({
      model: MODEL,
      input: [
        { role: 'developer', content: 'You repeat.' },
        { role: 'user', content: [{ type: 'input_text', text: 'echo: from parts' }] },
      ],
    });
    t.equal(response.output_text, 'from parts');
  });

  t.test(`[${wire}] max_output_tokens cuts the answer: status incomplete, reason max_output_tokens`, async (t) => {
    const response = await client().responses.create({ model: MODEL, input: 'Tell me a story.', max_output_tokens: 3 });
    t.equal(response.status, 'incomplete');
    t.same(response.incomplete_details, { reason: 'max_output_tokens' });
    t.equal(response.usage?.output_tokens, 3);
  });

  t.test(`[${wire}] create with stream yields the events in order and the text`, async (t) => {
    const stream = await client().responses.create({ model: MODEL, input: 'echo: one two three', stream: true });
    const types: string[] = [];
    const sequence: number[] = [];
    let text = '';
    let completed: OpenAI.Responses.Response | undefined;
    for await (const event of stream) {
      types.push(event.type);
      sequence.push(event.sequence_number);
      if (event.type === 'response.output_text.delta')
        text += wire === 'openai' ? event.delta : (event.delta as unknown as { output_text: string }).output_text;
      if (event.type === 'response.completed') completed = event.response;
    }
    t.equal(text, 'one two three');
    t.same(types.slice(0, 3), ['response.created', 'response.output_item.added', 'response.content_part.added']);
    t.same(types.slice(-4), [
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    t.same(
      sequence,
      sequence.map((_, index) => index),
      'sequence_number rises from 0',
    );
    t.equal(completed?.status, 'completed');
    t.equal(
      completed?.output[0]?.type === 'message' && completed.output[0].content[0]?.type === 'output_text'
        ? completed.output[0].content[0].text
        : '',
      'one two three',
    );
    t.ok((completed?.usage?.output_tokens ?? 0) > 0);
  });

  t.test(`[${wire}] responses.stream + finalResponse assembles the response`, async (t) => {
    const runner = client().responses.stream({ model: MODEL, input: 'echo: streamed helper' });
    const final = await runner.finalResponse();
    t.equal(final.output_text, 'streamed helper');
    t.equal(final.status, 'completed');
    t.match(final.id, /^resp_/);
    t.ok((final.usage?.total_tokens ?? 0) > 0);
  });

  t.test(`[${wire}] ids agree between the streamed events and the final response`, async (t) => {
    const stream = await client().responses.create({ model: MODEL, input: 'echo: same ids', stream: true });
    const itemIds = new Set<string>();
    let createdId = '';
    let final: OpenAI.Responses.Response | undefined;
    for await (const event of stream) {
      if (event.type === 'response.created') createdId = event.response.id;
      if ('item_id' in event) itemIds.add(event.item_id);
      if (event.type === 'response.output_item.added' || event.type === 'response.output_item.done')
        itemIds.add(event.item.id!);
      if (event.type === 'response.completed') final = event.response;
    }
    t.equal(final?.id, createdId);
    t.same(
      [...itemIds],
      final?.output.map((item) => item.id),
    );
  });

  t.test(`[${wire}] an unknown model is a NotFoundError with code model_not_found`, async (t) => {
    await t.rejects(client().responses.create({ model: 'gpt-4o', input: 'x' }), {
      status: 404,
      code: 'model_not_found',
      param: 'model',
    });
  });

  t.test(`[${wire}] function tools are a BadRequestError pointing to the other endpoints (rule 5)`, async (t) => {
    await t.rejects(
      client().responses.create({
        model: MODEL,
        input: 'x',
        tools: [{ type: 'function', name: 'f', parameters: null, strict: null }],
      }),
      { status: 400, message: /\/v1\/chat\/completions.*\/v1\/messages/ },
    );
  });

  t.test(`[${wire}] an upstream cut in the middle of a stream surfaces as an error`, async (t) => {
    const stream = await client().responses.create(
      { model: MODEL, input: 'Tell me a story.', stream: true },
      { headers: { 'x-sim-fault': 'cut:3' } },
    );
    await t.rejects(
      (async () => {
        for await (const event of stream) void event;
      })(),
      { message: /model server/i },
    );
    const runner = client().responses.stream(
      { model: MODEL, input: 'Tell me a story.' },
      { headers: { 'x-sim-fault': 'cut:3' } },
    );
    await t.rejects(runner.finalResponse());
  });
}
