/** A config that cannot be used; the message names the file, the line and the key. */
export class ConfigError extends Error {}
