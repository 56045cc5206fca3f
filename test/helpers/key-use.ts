// One chat request with an API key, to see whether the gateway takes the key (200) or not (401).
export async function chatStatus(gatewayUrl: string, key: string): Promise<number> {
  const response = await fetch(`${gatewayUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ model: 'qwen3-8b', messages: [{ role: 'user', content: 'echo: hi' }] }),
  });
  await response.arrayBuffer();
  return response.status;
}
