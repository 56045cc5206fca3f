import { pino, type DestinationStream, type Logger } from 'pino';

/** Structured JSON logs; anything that could hold a key is redacted. */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: undefined,
      redact: {
        // Exact paths only: wildcards make every log line pay for a walk of the object.
        paths: [
          'authorization',
          'apiKey',
          'api_key',
          'key',
          'headers.authorization',
          'headers["x-api-key"]',
          'req.headers.authorization',
          'req.headers["x-api-key"]',
        ],
        censor: '[redacted]',
      },
    },
    destination,
  );
}
