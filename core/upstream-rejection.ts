// A model server's refusal (400, 413, 422) in the gateway's own words. The server's text is never shown:
// it may carry tracebacks, URLs, addresses, file paths and the served model's name. It is only read for
// what kind of refusal it is, in the wordings of vLLM, llama-server, SGLang, TGI and Ollama, e.g.
// - vLLM: "This model's maximum context length is 32768 tokens. However, you requested …",
//   "'max_tokens' or 'max_completion_tokens' is too large: …", "max_tokens must be at least 1, got 0.";
// - llama-server: "the request exceeds the available context size, try increasing it";
// - SGLang: "The input (40000 tokens) is longer than the model's context length (32768 tokens).";
// - TGI: "Input validation error: `inputs` tokens + `max_new_tokens` must be <= 4096. …";
// - Ollama: "prompt too long; exceeded max context length by 12 tokens".

/** In order: the first that matches names the reason. */
const REASONS: ReadonlyArray<{ pattern: RegExp; reason: string }> = [
  {
    pattern:
      /context (length|size|window)|max(imum)? model length|max_model_len|kv (cache )?size|prompt (is )?too (long|big)|`inputs` (tokens|must have)|input (length|is too large|is larger)/i,
    reason: 'context length exceeded',
  },
  { pattern: /max_tokens|max_completion_tokens|max_new_tokens|n_predict/i, reason: 'max_tokens out of range' },
  { pattern: /tool/i, reason: 'tools or tool_choice not accepted' },
  { pattern: /response_format|json[_ ]schema|grammar|guided/i, reason: 'response_format not accepted' },
  {
    pattern: /temperature|top_p|top_k|min_p|penalty|\bseed\b|logprobs|\bstop\b/i,
    reason: 'a sampling parameter out of range',
  },
];

/** How much of the server's text is read for the reason (its message comes first). */
const READ_CHARS = 4096;

/** "The model server rejected the request: context length exceeded." or, when unrecognised, without a reason. */
export function rejectionMessage(status: number, text: string): string {
  const head = text.slice(0, READ_CHARS);
  const reason =
    REASONS.find((candidate) => candidate.pattern.test(head))?.reason ??
    (status === 413 ? 'request too large' : undefined);
  return reason === undefined
    ? 'The model server rejected the request.'
    : `The model server rejected the request: ${reason}.`;
}
