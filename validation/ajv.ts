import { Ajv } from 'ajv';

/** The one Ajv instance for the gateway's own schemas (requests, config), strict so a schema's typo fails at start. */
export const ajv = new Ajv({ allErrors: false, strict: true, strictRequired: false, allowUnionTypes: true });
