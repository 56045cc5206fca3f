"""The messages dialect through the anthropic SDK, as a user writes it: no gateway header, no option."""

from __future__ import annotations

from typing import Any

import anthropic

from scenario import RequestIds, run, settings

s = settings()
request_ids = RequestIds()


def client(api_key: str | None = None) -> anthropic.Anthropic:
    """The gateway and key from ANTHROPIC_BASE_URL and ANTHROPIC_API_KEY, as a user sets them; another key if given."""
    http = anthropic.DefaultHttpxClient(event_hooks={"response": [request_ids]})
    return anthropic.Anthropic(api_key=api_key, max_retries=0, http_client=http)


WEATHER: Any = {
    "name": "get_weather",
    "description": "The weather in a city.",
    "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
}


def usage_of(usage: Any) -> dict[str, int]:
    """The prompt tokens in all (the ledger splits off cache reads and writes) and the output tokens."""
    cached = (usage.cache_read_input_tokens or 0) + (usage.cache_creation_input_tokens or 0)
    return {"input": usage.input_tokens + cached, "output": usage.output_tokens}


def text_of(message: Any) -> str:
    return "".join(block.text for block in message.content if block.type == "text")


def plain() -> dict[str, Any]:
    message = client().messages.create(model=s.model, max_tokens=200, messages=[{"role": "user", "content": s.prompt}])
    return {
        "model": message.model,
        "stop_reason": message.stop_reason,
        "text": text_of(message),
        "usage": [usage_of(message.usage)],
    }


def streamed() -> dict[str, Any]:
    with client().messages.stream(
        model=s.model, max_tokens=200, messages=[{"role": "user", "content": s.prompt}]
    ) as stream:
        deltas = "".join(stream.text_stream)
        final = stream.get_final_message()
    return {
        "deltas": deltas,
        "stop_reason": final.stop_reason,
        "text": text_of(final),
        "usage": [usage_of(final.usage)],
    }


def count_tokens() -> dict[str, Any]:
    """count_tokens, then the same request: the count is the prompt the answer bills."""
    sdk = client()
    messages: Any = [{"role": "user", "content": s.prompt}]
    counted = sdk.messages.count_tokens(model=s.model, messages=messages)
    message = sdk.messages.create(model=s.model, max_tokens=200, messages=messages)
    return {"counted": counted.input_tokens, "usage": [usage_of(message.usage)]}


def tool_round_trip() -> dict[str, Any]:
    sdk = client()
    messages: list[Any] = [{"role": "user", "content": s.tool_prompt}]
    first = sdk.messages.create(model=s.model, max_tokens=200, messages=messages, tools=[WEATHER])
    use = next(block for block in first.content if block.type == "tool_use")
    messages += [
        {"role": "assistant", "content": first.content},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": use.id, "content": s.tool_result}]},
    ]
    second = sdk.messages.create(model=s.model, max_tokens=200, messages=messages, tools=[WEATHER])
    return {
        "stop_reasons": [first.stop_reason, second.stop_reason],
        "call": {"id": use.id, "name": use.name, "arguments": use.input},
        "text": text_of(second),
        "usage": [usage_of(first.usage), usage_of(second.usage)],
    }


def models_retrieve() -> dict[str, Any]:
    return client().models.retrieve(s.model).model_dump(mode="json")


def bad_key() -> dict[str, Any]:
    client("sk-svc-not-a-key").messages.create(model=s.model, max_tokens=10, messages=[{"role": "user", "content": "x"}])
    return {}


def unknown_model() -> dict[str, Any]:
    client().messages.create(model="claude-opus-4-1", max_tokens=10, messages=[{"role": "user", "content": "x"}])
    return {}


def bad_field() -> dict[str, Any]:
    client().messages.create(model=s.model, max_tokens=9000, messages=[{"role": "user", "content": "x"}])
    return {}


def unknown_model_with_bad_field() -> dict[str, Any]:
    """ChatAnthropic's case (issue #26, bug 3). A timeout given, or the SDK refuses so large a max_tokens itself."""
    client().messages.create(
        model="claude-opus-4-1", max_tokens=99999, messages=[{"role": "user", "content": "x"}], timeout=60
    )
    return {}


run(
    {
        "plain": plain,
        "streamed": streamed,
        "count_tokens": count_tokens,
        "tool_round_trip": tool_round_trip,
        "models_retrieve": models_retrieve,
        "bad_key": bad_key,
        "unknown_model": unknown_model,
        "bad_field": bad_field,
        "unknown_model_with_bad_field": unknown_model_with_bad_field,
    },
    request_ids,
    s.only,
)
