"""The chat completions dialect through the openai SDK, as a user writes it: no gateway header, no option."""

from __future__ import annotations

import json
from typing import Any

import openai

from scenario import RequestIds, openai_client, run, settings

s = settings()
request_ids = RequestIds()


def client(api_key: str | None = None) -> openai.OpenAI:
    return openai_client(request_ids, api_key)


WEATHER: Any = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "The weather in a city.",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    },
}


def usage_of(usage: Any) -> dict[str, int]:
    return {"input": usage.prompt_tokens, "output": usage.completion_tokens}


def plain() -> dict[str, Any]:
    completion = client().chat.completions.create(model=s.model, messages=[{"role": "user", "content": s.prompt}])
    choice = completion.choices[0]
    return {
        "model": completion.model,
        "text": choice.message.content,
        "finish_reason": choice.finish_reason,
        "usage": [usage_of(completion.usage)],
    }


def streamed() -> dict[str, Any]:
    stream = client().chat.completions.create(
        model=s.model,
        messages=[{"role": "user", "content": s.prompt}],
        stream=True,
        stream_options={"include_usage": True},
    )
    text, finish_reason, usage = "", None, None
    for chunk in stream:
        for choice in chunk.choices:
            text += choice.delta.content or ""
            finish_reason = choice.finish_reason or finish_reason
        usage = chunk.usage or usage
    return {"text": text, "finish_reason": finish_reason, "usage": [usage_of(usage)]}


def tool_round_trip() -> dict[str, Any]:
    sdk = client()
    messages: list[Any] = [{"role": "user", "content": s.tool_prompt}]
    first = sdk.chat.completions.create(model=s.model, messages=messages, tools=[WEATHER])
    call = first.choices[0].message.tool_calls[0]
    messages += [
        first.choices[0].message.model_dump(exclude_none=True),
        {"role": "tool", "tool_call_id": call.id, "content": s.tool_result},
    ]
    second = sdk.chat.completions.create(model=s.model, messages=messages, tools=[WEATHER])
    return {
        "finish_reasons": [first.choices[0].finish_reason, second.choices[0].finish_reason],
        "call": {"id": call.id, "name": call.function.name, "arguments": json.loads(call.function.arguments)},
        "text": second.choices[0].message.content,
        "usage": [usage_of(first.usage), usage_of(second.usage)],
    }


def models_retrieve() -> dict[str, Any]:
    return client().models.retrieve(s.model).model_dump(mode="json")


def bad_key() -> dict[str, Any]:
    client("sk-svc-not-a-key").chat.completions.create(model=s.model, messages=[{"role": "user", "content": "x"}])
    return {}


def unknown_model() -> dict[str, Any]:
    client().chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "x"}])
    return {}


def bad_field() -> dict[str, Any]:
    client().chat.completions.create(model=s.model, messages=[{"role": "user", "content": "x"}], temperature=5)
    return {}


def unknown_model_with_bad_field() -> dict[str, Any]:
    client().chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "x"}], max_tokens=99999)
    return {}


run(
    {
        "plain": plain,
        "streamed": streamed,
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
