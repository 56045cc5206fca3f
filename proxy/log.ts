import { pino, type DestinationStream, type Logger } from 'pino';

/** Structured JSON logs; anything that could hold a key is redacted. */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: undefined,
      redact: {
        paths: ['authorization', 'apiKey', 'api_key', 'key', '*.authorization', '*.apiKey', '*.api_key', '*["x-api-key"]', 'headers.authorization', 'req.headers.authorization', 'req.headers["x-api-key"]'],
        censor: '[redacted]',
      },
    },
    destination,
  );
}
