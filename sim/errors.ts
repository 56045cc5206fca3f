// vLLM's error response: `{"error": {"message", "type", "param", "code"}}`, code = HTTP status.
import { STATUS_CODES } from 'node:http';

export interface VllmErrorBody {
  error: { message: string; type: string; param: string | null; code: number };
}

/** An error the sim answers with, before any response byte was sent. */
export class SimError extends Error {
  readonly status: number;
  readonly type: string;
  readonly param: string | null;

  constructor(status: number, message: string, param: string | null = null, type = errorTypeFor(status)) {
    super(message);
    this.status = status;
    this.type = type;
    this.param = param;
  }

  body(): VllmErrorBody {
    return { error: { message: this.message, type: this.type, param: this.param, code: this.status } };
  }
}

/** vLLM names error types after the status phrase: 400 BadRequestError, 404 NotFoundError. */
export function errorTypeFor(status: number): string {
  const phrase = (STATUS_CODES[status] ?? 'Unknown').replace(/[^A-Za-z]/g, '');
  return phrase.endsWith('Error') ? phrase : `${phrase}Error`;
}

export function badRequest(message: string, param: string | null = null): SimError {
  return new SimError(400, message, param);
}
