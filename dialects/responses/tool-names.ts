// The names under which the client's tools reach the model (docs/endpoints.md "Codex's tool types"). The model
// sees one flat list of function tools; a `namespace` tool's functions are named `<namespace>__<name>`, the
// delimiter Codex itself uses when it cannot keep the split (its `ToolName::canonical_flat_name`), and the
// `local_shell` tool is a function named `local_shell`. `custom` tools keep their names.

const NAMESPACE_DELIMITER = '__';

/** The model-facing name of function `name` in namespace `namespace`. */
export function flatName(namespace: string, name: string): string {
  return `${namespace}${NAMESPACE_DELIMITER}${name}`;
}

/** The function the model calls for the `local_shell` tool. */
export const LOCAL_SHELL_FUNCTION = 'local_shell';
