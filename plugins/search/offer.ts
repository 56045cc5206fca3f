// What the model is given when search is on: the search function beside the client's tools, and a
// system note on how to use it and how to cite what it returns.
import { SEARCH_FUNCTION_NAME, type ChatFunctionTool, type ChatRequest } from '../../core/canonical.js';
import { GatewayError } from '../../core/errors.js';

export const SEARCH_FUNCTION: ChatFunctionTool = {
  type: 'function',
  function: {
    name: SEARCH_FUNCTION_NAME,
    description:
      'Search the web for current or specific information. Returns numbered results ([1], [2], …) with their title, URL and text.',
    parameters: {
      type: 'object',
      properties: { query: { type: 'string', description: 'What to search for: a few precise keywords.' } },
      required: ['query'],
    },
  },
};

export const SEARCH_NOTE =
  `You can search the web with the ${SEARCH_FUNCTION_NAME} function. Its results are numbered [1], [2] and so on. ` +
  "When a sentence of your answer uses a result, end that sentence with the result's number in square brackets, e.g. [1]. " +
  'Cite only numbers that a search returned.';

/** Adds the function and the note (to the leading system prompt: open models' templates want one, first). */
export function offerSearch(request: ChatRequest): void {
  const clash = request.tools?.findIndex((tool) => tool.function.name === SEARCH_FUNCTION_NAME) ?? -1;
  if (clash >= 0)
    throw new GatewayError(
      'GW_ERR_REQUEST_INVALID',
      `Invalid value for 'tools': the tool name '${SEARCH_FUNCTION_NAME}' is reserved for the web search tool.`,
      'tools',
    );
  request.tools = [...(request.tools ?? []), SEARCH_FUNCTION];
  const first = request.messages[0];
  if (first?.role === 'system') {
    first.content =
      typeof first.content === 'string'
        ? `${first.content}\n\n${SEARCH_NOTE}`
        : [...first.content, { type: 'text', text: SEARCH_NOTE }];
  } else {
    request.messages.unshift({ role: 'system', content: SEARCH_NOTE });
  }
}
