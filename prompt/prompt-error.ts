// A conversation that cannot become a prompt: a tool call whose arguments are not JSON, or a chat
// template that refuses the messages (raise_exception). The upstream would refuse the same request
// with a 400, so callers turn this into their own "bad request".

export class PromptError extends Error {
  /** Where it failed: the messages (arguments that are not JSON) or the model's template. */
  readonly stage: 'messages' | 'template';
  /** The request field at fault (`messages`), or null. */
  readonly param: string | null;

  constructor(message: string, stage: 'messages' | 'template', param: string | null = null) {
    super(message);
    this.name = 'PromptError';
    this.stage = stage;
    this.param = param;
  }
}
