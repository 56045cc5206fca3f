// A server that runs without a reasoning parser (llama-server `--reasoning-format none`, vLLM without
// `--reasoning-parser`) sends the model's raw `<think>…</think>` inside `content`. The gateway then moves
// the reasoning to `reasoning_content` itself, streamed and not, so every dialect shows it as it would
// with a parser. Only the content is read: reasoning the server parsed, and tool calls, pass untouched.
//
// `auto` splits an answer whose content starts with `<think>` (leading whitespace aside), or whose first
// tag is `</think>` with nothing but whitespace before it (empty reasoning); any other content is text.
// `open` is for templates that open `<think>` in the prompt (DeepSeek-R1, Qwen3's 2507 thinking models):
// the content is reasoning from its start until `</think>`. When the request switched thinking off (and
// the server got the switch), nothing becomes reasoning: only the template's empty `<think>\n\n</think>`,
// which llama-server echoes into the content, is cut. The reasoning is trimmed and the newlines that
// open the answer after it are cut, as the servers' parsers do. A streamed answer holds back only what
// may still be part of a tag (and the whitespace beside it).
import type { ChatChunk, ChatChunkChoice, ChatCompletion, ChatRequest } from '../../core/canonical.js';

export const REASONING_TAGS_MODES = ['auto', 'open', 'off'] as const;

/** `upstream.reasoning_tags`. */
export type ReasoningTagsMode = (typeof REASONING_TAGS_MODES)[number];

/** How one request's answer is split. */
export interface TagPolicy {
  /** The content is reasoning from its start (the template opened `<think>` in the prompt). */
  readonly open: boolean;
  /** The answer may think; false: only an empty echoed block is cut. */
  readonly thinking: boolean;
}

/**
 * The request's policy, or undefined when nothing is split: mode `off`. `switchSent`: the server gets the
 * client's thinking switch (a flavor without one may think whatever the client asked).
 */
export function tagPolicy(mode: ReasoningTagsMode, request: ChatRequest, switchSent: boolean): TagPolicy | undefined {
  if (mode === 'off') return undefined;
  return { open: mode === 'open', thinking: !(request.gateway?.enable_thinking === false && switchSent) };
}

const OPEN = '<think>';
const CLOSE = '</think>';
const LEADING_NEWLINES = /^\n+/;
const WHITESPACE = /\s/;

/** A piece of content, split. */
interface Split {
  reasoning: string;
  content: string;
}

type State =
  /** Nothing decided: only whitespace, or the start of a tag, so far. */
  | 'start'
  /** Thinking off and the content opened `<think>`: cut if only whitespace comes before `</think>`. */
  | 'echoed-block'
  | 'reasoning'
  /** After `</think>`: the answer, without the newlines that open it. */
  | 'answer'
  /** Not split: the content passes as it is. */
  | 'text';

/** One choice's content, split as it arrives. */
export class ChoiceTags {
  readonly #policy: TagPolicy;
  #state: State = 'start';
  /** Text held back: what may still be part of a tag. */
  #held = '';
  #reasoningStarted = false;
  #answerStarted = false;

  constructor(policy: TagPolicy) {
    this.#policy = policy;
  }

  /** Whether the content passes as it is from now on. */
  get passing(): boolean {
    return this.#state === 'text';
  }

  /** The choice turned out not to need splitting (the server parses reasoning, or called a tool first): what was held, as text. */
  pass(): string {
    const held = this.#state === 'start' || this.#state === 'echoed-block' ? this.#held : '';
    if (this.#state !== 'reasoning' && this.#state !== 'answer') {
      this.#state = 'text';
      this.#held = '';
    }
    return held;
  }

  feed(text: string): Split {
    const out: Split = { reasoning: '', content: '' };
    this.#run(text, out);
    return out;
  }

  /** The answer ended: what was held back goes out. */
  end(): Split {
    const out: Split = { reasoning: '', content: '' };
    const held = this.#held;
    this.#held = '';
    if (this.#state === 'reasoning') out.reasoning = held.trimEnd();
    else if (this.#state === 'start' && this.#policy.thinking && this.#policy.open) out.reasoning = held.trimStart();
    else out.content = held;
    return out;
  }

  #run(input: string, out: Split): void {
    let text = input;
    for (;;) {
      switch (this.#state) {
        case 'text':
          out.content += text;
          return;
        case 'answer':
          if (!this.#answerStarted) {
            text = text.replace(LEADING_NEWLINES, '');
            if (text === '') return;
            this.#answerStarted = true;
          }
          out.content += text;
          return;
        case 'start': {
          const whole = this.#held + text;
          const head = whole.trimStart();
          this.#held = '';
          text = whole;
          if (!this.#policy.thinking) {
            if (head.startsWith(OPEN)) this.#state = 'echoed-block';
            else if (OPEN.startsWith(head)) {
              this.#held = whole;
              return;
            } else this.#state = 'text';
          } else if (head.startsWith(OPEN)) {
            this.#state = 'reasoning';
            text = head.slice(OPEN.length);
          } else if (head.startsWith(CLOSE)) {
            this.#state = 'answer';
            text = head.slice(CLOSE.length);
          } else if (OPEN.startsWith(head) || CLOSE.startsWith(head)) {
            this.#held = whole;
            return;
          } else this.#state = this.#policy.open ? 'reasoning' : 'text';
          break;
        }
        case 'echoed-block': {
          const whole = this.#held + text;
          const inside = whole.slice(whole.indexOf(OPEN) + OPEN.length).trimStart();
          this.#held = '';
          if (inside.startsWith(CLOSE)) {
            this.#state = 'answer';
            text = inside.slice(CLOSE.length);
          } else if (CLOSE.startsWith(inside)) {
            this.#held = whole;
            return;
          } else {
            this.#state = 'text';
            text = whole;
          }
          break;
        }
        case 'reasoning': {
          let whole = this.#held + text;
          this.#held = '';
          if (!this.#reasoningStarted) whole = whole.trimStart();
          const close = whole.indexOf(CLOSE);
          if (close >= 0) {
            out.reasoning += whole.slice(0, close).trimEnd();
            this.#state = 'answer';
            text = whole.slice(close + CLOSE.length);
            break;
          }
          const keep = heldBackLength(whole);
          const sent = whole.slice(0, whole.length - keep);
          if (sent !== '') this.#reasoningStarted = true;
          out.reasoning += sent;
          this.#held = whole.slice(whole.length - keep);
          return;
        }
      }
    }
  }
}

/**
 * How much of the end of the reasoning so far to hold back: what may still become `</think>`, and the
 * whitespace before it (the reasoning ends trimmed, as the servers' parsers give it).
 */
function heldBackLength(text: string): number {
  let length = 0;
  for (let tag = Math.min(CLOSE.length - 1, text.length); tag > 0; tag--) {
    if (CLOSE.startsWith(text.slice(text.length - tag))) {
      length = tag;
      break;
    }
  }
  while (length < text.length && WHITESPACE.test(text[text.length - length - 1]!)) length++;
  return length;
}

/** A streamed answer's content, split chunk by chunk (per choice). */
export class ReasoningTags {
  readonly #policy: TagPolicy;
  readonly #choices = new Map<number, ChoiceTags>();

  constructor(policy: TagPolicy) {
    this.#policy = policy;
  }

  see(chunk: ChatChunk): void {
    for (const choice of chunk.choices) this.#choice(choice);
  }

  #choice(choice: ChatChunkChoice): void {
    let tags = this.#choices.get(choice.index);
    if (tags === undefined) {
      tags = new ChoiceTags(this.#policy);
      this.#choices.set(choice.index, tags);
    }
    if (tags.passing) return;
    const delta = choice.delta;
    const content = typeof delta.content === 'string' ? delta.content : '';
    // The server parsed reasoning itself, or went on to a tool call: the content is its own from here.
    if (delta.reasoning_content || delta.reasoning || (delta.tool_calls && delta.tool_calls.length > 0)) {
      const held = tags.pass();
      if (held !== '' || content !== '') delta.content = held + content;
      if (tags.passing) return;
    }
    const split = content === '' ? { reasoning: '', content: '' } : tags.feed(content);
    if (choice.finish_reason) {
      const rest = tags.end();
      split.reasoning += rest.reasoning;
      split.content += rest.content;
    }
    if (split.reasoning !== '') delta.reasoning_content = (delta.reasoning_content ?? '') + split.reasoning;
    if (content !== '' || split.content !== '') delta.content = split.content;
  }
}

/** A non-streamed answer's content, split the same way (each choice whose server did not parse reasoning). */
export function splitReasoningTags(completion: ChatCompletion, policy: TagPolicy): void {
  for (const { message } of completion.choices) {
    if (message.reasoning_content || !message.content) continue;
    const tags = new ChoiceTags(policy);
    const split = tags.feed(message.content);
    const rest = tags.end();
    const reasoning = split.reasoning + rest.reasoning;
    message.content = split.content + rest.content || null;
    if (reasoning !== '') message.reasoning_content = reasoning;
  }
}
