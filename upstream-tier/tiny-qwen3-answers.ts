// What the tiny Qwen3 model says, token by token. Each piece is one token of Qwen3's vocabulary
// (tiny-qwen3-weights.ts checks that), chosen so that no token is followed by two different tokens
// except where the weights tell the cases apart (the `\n` that ends `assistant\n` starts the
// thinking; the one after `<tool_call>` starts the call's JSON).

/** The thinking, which follows the `\n` of `<|im_start|>assistant\n` when thinking is on. */
export const THINKING = ['<think>', 'Let', ' me', ' think', '.', '</think>', '\n\n'] as const;

/** The text answer, which follows the `\n\n` that ends `</think>\n\n` (generated or in the prompt). */
export const ANSWER = ['Hello', ' world', '!', '<|im_end|>'] as const;

/**
 * The tool call, which follows that `\n\n` instead when the prompt offers tools (the template puts
 * `<tool_call>` into the system prompt) and holds no tool result (`<tool_response>`). Spaced so
 * that no piece repeats: `":`, `":"` and `":{"` are three different tokens.
 */
export const TOOL_CALL = [
  '<tool_call>',
  '\n',
  '{"',
  'name',
  '":',
  ' "',
  'get',
  '_weather',
  '","',
  'arguments',
  '":{"',
  'city',
  '":"',
  'Paris',
  '"}}\n',
  '</tool_call>',
  '<|im_end|>',
] as const;

/** What follows a prefill that ends in `:`; also what follows `!` when the end of turn is blocked (`--ignore-eos`). */
export const CONTINUATION = [' Hello', ' world', '!'] as const;

/** What llama-server makes of the pieces: the reasoning, the text answer and the tool call. */
export const SAYS = {
  reasoning: 'Let me think.',
  content: 'Hello world!',
  toolName: 'get_weather',
  toolArguments: { city: 'Paris' },
} as const;
