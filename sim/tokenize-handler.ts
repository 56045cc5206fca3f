// vLLM's POST /tokenize and POST /detokenize.
// /tokenize takes `{model?, prompt, add_special_tokens?}` or `{model?, messages, tools?,
// add_generation_prompt?, continue_final_message?, chat_template_kwargs?}` and answers `{count, max_model_len, tokens,
// token_strs}` (token_strs only with return_token_strs). /detokenize takes `{model?, tokens}` and
// answers `{prompt}` (special tokens kept, as vLLM's decode does).
import { chatPrompt } from './chat-prompt.js';
import { generationPrompt, isRecord, parseMessages, parseTools } from './chat-request.js';
import { SimError, badRequest } from './errors.js';
import { decode, encode, tokenStrings, vocabSize } from './qwen3-prompt.js';

export interface TokenizeResponse {
  count: number;
  max_model_len: number;
  tokens: number[];
  token_strs: string[] | null;
}

export function tokenize(body: unknown, servedModel: string, maxModelLen: number): TokenizeResponse {
  if (!isRecord(body)) throw badRequest('The request body must be a JSON object.');
  checkModel(body, servedModel);
  let tokens: number[];
  if (body.messages !== undefined) {
    const kwargs = body.chat_template_kwargs;
    tokens = [
      ...chatPrompt({
        messages: parseMessages(body.messages),
        tools: parseTools(body.tools),
        ...generationPrompt(body),
        chatTemplateKwargs: isRecord(kwargs) ? kwargs : {},
      }).ids,
    ];
  } else if (typeof body.prompt === 'string') {
    // Qwen3 adds no BOS/EOS, so add_special_tokens changes nothing.
    tokens = encode(body.prompt);
  } else {
    throw badRequest('prompt: Field required (or messages)', 'prompt');
  }
  return {
    count: tokens.length,
    max_model_len: maxModelLen,
    tokens,
    token_strs: body.return_token_strs === true ? tokenStrings(tokens) : null,
  };
}

export function detokenize(body: unknown, servedModel: string): { prompt: string } {
  if (!isRecord(body)) throw badRequest('The request body must be a JSON object.');
  checkModel(body, servedModel);
  const { tokens } = body;
  if (!Array.isArray(tokens) || !tokens.every((t): t is number => Number.isInteger(t))) {
    throw badRequest('tokens: Input should be a valid list of integers', 'tokens');
  }
  const size = vocabSize();
  const bad = tokens.find((t) => t < 0 || t >= size);
  if (bad !== undefined) throw badRequest(`Token id ${bad} is out of vocabulary (0 to ${size - 1}).`, 'tokens');
  return { prompt: decode(tokens) };
}

function checkModel(body: Record<string, unknown>, servedModel: string): void {
  const model = body.model;
  if (model === undefined || model === null || model === servedModel) return;
  throw new SimError(404, `The model \`${String(model)}\` does not exist.`, 'model');
}
