"""The responses dialect through the openai SDK, as a user writes it: no gateway header, no option."""

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
    "name": "get_weather",
    "description": "The weather in a city.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
}


def usage_of(usage: Any) -> dict[str, int]:
    return {"input": usage.input_tokens, "output": usage.output_tokens}


def plain() -> dict[str, Any]:
    response = client().responses.create(model=s.model, input=s.prompt)
    return {
        "model": response.model,
        "status": response.status,
        "text": response.output_text,
        "usage": [usage_of(response.usage)],
    }


def streamed() -> dict[str, Any]:
    """The stream helper, which concatenates each delta to its text (issue #26's TypeError on the spec wire)."""
    with client().responses.stream(model=s.model, input=s.prompt) as stream:
        deltas = [event.delta for event in stream if event.type == "response.output_text.delta"]
        final = stream.get_final_response()
    return {
        "delta_types": sorted({type(delta).__name__ for delta in deltas}),
        "deltas": "".join(str(delta) for delta in deltas),
        "status": final.status,
        "text": final.output_text,
        "usage": [usage_of(final.usage)],
    }


def streamed_events() -> dict[str, Any]:
    """create(stream=True): the raw events, in order."""
    events = list(client().responses.create(model=s.model, input=s.prompt, stream=True))
    completed = next(event.response for event in events if event.type == "response.completed")
    return {
        "types": [event.type for event in events],
        "text": "".join(event.delta for event in events if event.type == "response.output_text.delta"),
        "usage": [usage_of(completed.usage)],
    }


def tool_round_trip() -> dict[str, Any]:
    """The loop of OpenAI's function-calling guide: the output items go back into the input, then the result."""
    sdk = client()
    conversation: list[Any] = [{"role": "user", "content": s.tool_prompt}]
    first = sdk.responses.create(model=s.model, input=conversation, tools=[WEATHER])
    call = next(item for item in first.output if item.type == "function_call")
    conversation += first.output
    conversation.append({"type": "function_call_output", "call_id": call.call_id, "output": s.tool_result})
    second = sdk.responses.create(model=s.model, input=conversation, tools=[WEATHER])
    return {
        "statuses": [first.status, second.status],
        "call": {"id": call.call_id, "name": call.name, "arguments": json.loads(call.arguments)},
        "text": second.output_text,
        "usage": [usage_of(first.usage), usage_of(second.usage)],
    }


def models_retrieve() -> dict[str, Any]:
    return client().models.retrieve(s.model).model_dump(mode="json")


def bad_key() -> dict[str, Any]:
    client("sk-svc-not-a-key").responses.create(model=s.model, input="x")
    return {}


def unknown_model() -> dict[str, Any]:
    client().responses.create(model="gpt-4o", input="x")
    return {}


def bad_field() -> dict[str, Any]:
    client().responses.create(model=s.model, input="x", temperature=5)
    return {}


def unknown_model_with_bad_field() -> dict[str, Any]:
    client().responses.create(model="gpt-4o", input="x", max_output_tokens=99999)
    return {}


run(
    {
        "plain": plain,
        "streamed": streamed,
        "streamed_events": streamed_events,
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
