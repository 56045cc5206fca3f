// One question asked in each dialect, raw over HTTP (fetch, SSE read by hand) or through the real SDKs,
// and the answer reduced to what the scenarios compare: reasoning, text, tool calls, why it ended, usage.
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import type { DialectName } from '../../dialects/registry.js';
import { readSse } from '../kit/sse-reader.js';

export interface Question {
  dialect: DialectName;
  stream: boolean;
  /** Offer the get_weather tool. */
  tools?: boolean;
  /** Thinking on (the default) or off. */
  thinking?: boolean;
  maxTokens?: number;
  stop?: string[];
  /** The conversation; one user message "What is the weather in Paris?" by default. */
  messages?: Array<{ role: 'user' | 'assistant'; content: string }>;
  /** A JSON schema the answer must follow (structured output). */
  schema?: Record<string, unknown>;
}

export interface Answer {
  status: number;
  reasoning: string;
  text: string;
  toolCalls: Array<{ id: string; name: string; arguments: unknown }>;
  /** The dialect's own word: chat finish_reason, messages stop_reason, responses status (+ incomplete reason). */
  ended: string | null;
  /** messages: stop_sequence. */
  stopSequence?: string | null;
  usage: { input: number; output: number } | undefined;
  /** The error body of a non-200 answer. */
  error?: unknown;
}

export const PATHS: Record<DialectName, string> = {
  chat: '/v1/chat/completions',
  messages: '/v1/messages',
  responses: '/v1/responses',
};

const WEATHER = {
  name: 'get_weather',
  description: 'The weather in a city.',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

const DEFAULT_MESSAGES = [{ role: 'user' as const, content: 'What is the weather in Paris?' }];

/** The question as the dialect's request body. */
export function requestBody(question: Question): Record<string, unknown> {
  const thinking = question.thinking ?? true;
  const messages = question.messages ?? DEFAULT_MESSAGES;
  const maxTokens = question.maxTokens ?? 200;
  switch (question.dialect) {
    case 'chat':
      return {
        model: 'qwen3-8b',
        messages,
        max_tokens: maxTokens,
        stream: question.stream,
        ...(question.stream ? { stream_options: { include_usage: true } } : {}),
        ...(thinking ? {} : { reasoning_effort: 'none' }),
        ...(question.tools ? { tools: [{ type: 'function', function: WEATHER }] } : {}),
        ...(question.stop ? { stop: question.stop } : {}),
        ...(question.schema
          ? { response_format: { type: 'json_schema', json_schema: { name: 'answer', schema: question.schema } } }
          : {}),
      };
    case 'messages':
      return {
        model: 'qwen3-8b',
        messages,
        max_tokens: maxTokens,
        stream: question.stream,
        thinking: thinking ? { type: 'enabled', budget_tokens: Math.max(1024, maxTokens - 1) } : { type: 'disabled' },
        ...(question.tools
          ? { tools: [{ name: WEATHER.name, description: WEATHER.description, input_schema: WEATHER.parameters }] }
          : {}),
        ...(question.stop ? { stop_sequences: question.stop } : {}),
        ...(question.schema ? { output_config: { format: { type: 'json_schema', schema: question.schema } } } : {}),
      };
    case 'responses':
      return {
        model: 'qwen3-8b',
        input: messages,
        max_output_tokens: maxTokens,
        stream: question.stream,
        reasoning: { effort: thinking ? 'medium' : 'none' },
        ...(question.tools ? { tools: [{ type: 'function', ...WEATHER }] } : {}),
        ...(question.schema
          ? { text: { format: { type: 'json_schema', name: 'answer', schema: question.schema } } }
          : {}),
      };
  }
}

/** Asks over plain HTTP and reads the answer (a stream to its end). */
export async function askRaw(url: string, key: string, question: Question, signal?: AbortSignal): Promise<Answer> {
  const body = requestBody(question);
  // The messages dialect's thinking budget must stay under max_tokens; a small max_tokens turns thinking off.
  if (question.dialect === 'messages' && (question.maxTokens ?? 200) <= 1024 && question.thinking !== false)
    body.thinking = { type: 'enabled', budget_tokens: 1024 };
  const response = await fetch(url + PATHS[question.dialect], {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify(body),
    signal,
  });
  const text = await response.text();
  if (response.status !== 200) return { ...empty(response.status), error: safeJson(text) };
  if (!question.stream) return fromBody(question.dialect, JSON.parse(text) as Record<string, unknown>);
  return fromEvents(
    question.dialect,
    readSse(text).map((event) => ({ event: event.event ?? undefined, data: safeJson(event.data) })),
  );
}

function empty(status: number): Answer {
  return { status, reasoning: '', text: '', toolCalls: [], ended: null, usage: undefined };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- wire bodies, read field by field

/** A whole body in the dialect → the answer. */
export function fromBody(dialect: DialectName, body: Json): Answer {
  const answer = empty(200);
  switch (dialect) {
    case 'chat': {
      const choice = body.choices[0];
      answer.reasoning = choice.message.reasoning_content ?? '';
      answer.text = choice.message.content ?? '';
      for (const call of choice.message.tool_calls ?? [])
        answer.toolCalls.push({
          id: call.id,
          name: call.function.name,
          arguments: JSON.parse(call.function.arguments),
        });
      answer.ended = choice.finish_reason;
      answer.usage = body.usage && { input: body.usage.prompt_tokens, output: body.usage.completion_tokens };
      return answer;
    }
    case 'messages': {
      for (const block of body.content) {
        if (block.type === 'thinking') answer.reasoning += block.thinking;
        if (block.type === 'text') answer.text += block.text;
        if (block.type === 'tool_use')
          answer.toolCalls.push({ id: block.id, name: block.name, arguments: block.input });
      }
      answer.ended = body.stop_reason;
      answer.stopSequence = body.stop_sequence;
      answer.usage = {
        input: body.usage.input_tokens + (body.usage.cache_read_input_tokens ?? 0),
        output: body.usage.output_tokens,
      };
      return answer;
    }
    case 'responses': {
      for (const item of body.output) {
        if (item.type === 'reasoning') for (const part of item.content ?? []) answer.reasoning += part.text;
        if (item.type === 'message') for (const part of item.content) answer.text += part.text;
        if (item.type === 'function_call')
          answer.toolCalls.push({ id: item.call_id, name: item.name, arguments: JSON.parse(item.arguments) });
      }
      answer.ended = body.status === 'incomplete' ? `incomplete:${body.incomplete_details?.reason}` : body.status;
      answer.usage = body.usage && { input: body.usage.input_tokens, output: body.usage.output_tokens };
      return answer;
    }
  }
}

/** A stream's events in the dialect → the answer, built from the deltas (not from a final object). */
export function fromEvents(dialect: DialectName, events: Array<{ event: string | undefined; data: unknown }>): Answer {
  const answer = empty(200);
  const calls = new Map<number, { id: string; name: string; arguments: string }>();
  for (const { event, data } of events) {
    if (typeof data !== 'object' || data === null) continue;
    const message = data as Json;
    switch (dialect) {
      case 'chat': {
        if (message.error) answer.error = message.error;
        if (message.usage)
          answer.usage = { input: message.usage.prompt_tokens, output: message.usage.completion_tokens };
        for (const choice of message.choices ?? []) {
          const delta = choice.delta ?? {};
          answer.reasoning += delta.reasoning_content ?? '';
          answer.text += delta.content ?? '';
          for (const call of delta.tool_calls ?? []) {
            const known = calls.get(call.index) ?? { id: '', name: '', arguments: '' };
            known.id ||= call.id ?? '';
            known.name += call.function?.name ?? '';
            known.arguments += call.function?.arguments ?? '';
            calls.set(call.index, known);
          }
          if (choice.finish_reason) answer.ended = choice.finish_reason;
        }
        break;
      }
      case 'messages': {
        const type = message.type ?? event;
        if (type === 'error') answer.error = message.error;
        if (type === 'message_start') answer.usage = { input: message.message.usage.input_tokens, output: 0 };
        if (type === 'content_block_start' && message.content_block.type === 'tool_use')
          calls.set(message.index, { id: message.content_block.id, name: message.content_block.name, arguments: '' });
        if (type === 'content_block_delta') {
          const delta = message.delta;
          if (delta.type === 'thinking_delta') answer.reasoning += delta.thinking;
          if (delta.type === 'text_delta') answer.text += delta.text;
          if (delta.type === 'input_json_delta') {
            const call = calls.get(message.index);
            if (call) call.arguments += delta.partial_json;
          }
        }
        if (type === 'message_delta') {
          answer.ended = message.delta.stop_reason;
          answer.stopSequence = message.delta.stop_sequence;
          const usage = message.usage;
          answer.usage = {
            input: usage.input_tokens ?? answer.usage?.input ?? 0,
            output: usage.output_tokens,
          };
        }
        break;
      }
      case 'responses': {
        const type = message.type ?? event;
        if (type === 'response.reasoning_text.delta') answer.reasoning += message.delta;
        if (type === 'response.output_text.delta')
          answer.text += typeof message.delta === 'string' ? message.delta : message.delta.output_text;
        if (type === 'response.output_item.added' && message.item.type === 'function_call')
          calls.set(message.output_index, { id: message.item.call_id, name: message.item.name, arguments: '' });
        if (type === 'response.function_call_arguments.delta') {
          const call = calls.get(message.output_index);
          if (call) call.arguments += message.delta;
        }
        if (type === 'response.failed') answer.error = message.response?.error ?? message;
        if (type === 'response.completed' || type === 'response.incomplete') {
          const response = message.response;
          answer.ended =
            response.status === 'incomplete' ? `incomplete:${response.incomplete_details?.reason}` : response.status;
          answer.usage = response.usage && { input: response.usage.input_tokens, output: response.usage.output_tokens };
        }
        break;
      }
    }
  }
  for (const call of calls.values())
    answer.toolCalls.push({
      id: call.id,
      name: call.name,
      arguments: call.arguments ? JSON.parse(call.arguments) : {},
    });
  if (answer.error !== undefined && answer.ended === null) answer.status = 0;
  return answer;
}

/** Asks through the real SDK of the dialect (openai for chat and responses, @anthropic-ai/sdk for messages). */
export async function askSdk(url: string, key: string, question: Question): Promise<Answer> {
  const body = requestBody(question);
  switch (question.dialect) {
    case 'chat': {
      const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: key, maxRetries: 0 });
      if (!question.stream) {
        const completion = await client.chat.completions.create(
          body as unknown as OpenAI.ChatCompletionCreateParamsNonStreaming,
        );
        return fromBody('chat', completion as unknown as Json);
      }
      const stream = await client.chat.completions.create(
        body as unknown as OpenAI.ChatCompletionCreateParamsStreaming,
      );
      const events: Array<{ event: undefined; data: unknown }> = [];
      for await (const chunk of stream) events.push({ event: undefined, data: chunk });
      return fromEvents('chat', events);
    }
    case 'messages': {
      const client = new Anthropic({ baseURL: url, apiKey: key, maxRetries: 0 });
      if (!question.stream) {
        const message = await client.messages.create(body as unknown as Anthropic.MessageCreateParamsNonStreaming);
        return fromBody('messages', message as unknown as Json);
      }
      const stream = client.messages.stream(body as unknown as Anthropic.MessageCreateParamsStreaming);
      const events: Array<{ event: undefined; data: unknown }> = [];
      for await (const event of stream) events.push({ event: undefined, data: event });
      const final = fromBody('messages', (await stream.finalMessage()) as unknown as Json);
      const streamed = fromEvents('messages', events);
      return { ...final, usage: streamed.usage && final.usage };
    }
    case 'responses': {
      // The SDKs read the responses stream in OpenAI's own wire (docs/wire.md).
      const client = new OpenAI({
        baseURL: `${url}/v1`,
        apiKey: key,
        maxRetries: 0,
        defaultHeaders: { 'x-gateway-wire': 'openai' },
      });
      if (!question.stream) {
        const response = await client.responses.create(
          body as unknown as OpenAI.Responses.ResponseCreateParamsNonStreaming,
        );
        return fromBody('responses', response as unknown as Json);
      }
      const stream = client.responses.stream(body as unknown as OpenAI.Responses.ResponseCreateParamsStreaming);
      const events: Array<{ event: undefined; data: unknown }> = [];
      for await (const event of stream) events.push({ event: undefined, data: event });
      return fromEvents('responses', events);
    }
  }
}
