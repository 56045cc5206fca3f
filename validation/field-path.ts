/** `/messages/0/role` → `messages[0].role` (the form SDK users see in their code, and config keys). */
export function paramOf(instancePath: string, child?: string): string {
  const parts = instancePath.split('/').slice(1);
  if (child !== undefined) parts.push(child);
  let param = '';
  for (const part of parts) {
    const unescaped = part.replace(/~1/g, '/').replace(/~0/g, '~');
    param += /^\d+$/.test(unescaped) ? `[${unescaped}]` : param === '' ? unescaped : `.${unescaped}`;
  }
  return param;
}
