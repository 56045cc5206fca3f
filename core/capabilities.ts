// Named capabilities: what a plugin offers the rest of the node (the console, the admin side) by name, so
// a reader asks for `ratelimit.windowUse` and any plugin that publishes it serves it, built-in or custom.
/**
 * The capabilities by name, each with its type. A plugin that publishes one declares it here by
 * declaration merging (`declare module '…/core/capabilities.js' { interface PluginCapabilities { … } }`).
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- empty here on purpose: the plugins fill it by merging
export interface PluginCapabilities {}

/** The first plugin's (in chain order) capability of that name, or undefined when no plugin publishes it. */
export function capabilityOf<Name extends keyof PluginCapabilities>(
  plugins: readonly { readonly capabilities?: Partial<PluginCapabilities> }[],
  name: Name,
): PluginCapabilities[Name] | undefined {
  for (const plugin of plugins) {
    const capability = plugin.capabilities?.[name];
    if (capability !== undefined) return capability;
  }
  return undefined;
}
