"""What every scenario script shares: its settings, the request ids it saw, and its one JSON answer.

A script is run as `python SCRIPT SETTINGS_JSON` with the gateway and key in the variables the README gives
users (OPENAI_BASE_URL and OPENAI_API_KEY, ANTHROPIC_BASE_URL and ANTHROPIC_API_KEY). SETTINGS_JSON holds
`model`, `prompt` (a plain question), `tool_prompt` (one that makes the model call get_weather),
`tool_result` (what the tool answers) and, optionally, `only` (the scenarios to run).
It prints one JSON object: per scenario what it returned, or `raised` (the exception it raised), and the
`request_ids` (x-request-id) of the requests it made, in order, so a test can find their ledger rows.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from typing import Any, Callable

import openai


@dataclass(frozen=True)
class Settings:
    model: str
    prompt: str
    tool_prompt: str
    tool_result: str
    only: list[str] = field(default_factory=list)


def settings() -> Settings:
    return Settings(**json.loads(sys.argv[1]))


class RequestIds:
    """An httpx response hook that keeps the x-request-id of every answer, taken per scenario."""

    def __init__(self) -> None:
        self._seen: list[str | None] = []

    def __call__(self, response: Any) -> None:
        self._seen.append(response.headers.get("x-request-id"))

    def take(self) -> list[str | None]:
        taken, self._seen = self._seen, []
        return taken


def openai_client(request_ids: RequestIds, api_key: str | None = None) -> openai.OpenAI:
    """The gateway and key from OPENAI_BASE_URL and OPENAI_API_KEY, as a user sets them; another key if given."""
    http = openai.DefaultHttpxClient(event_hooks={"response": [request_ids]})
    return openai.OpenAI(api_key=api_key, max_retries=0, http_client=http)


def raised(error: BaseException) -> dict[str, Any]:
    """An exception as the test reads it: its class (the SDK's own for an HTTP error), status and message."""
    return {
        "class": type(error).__name__,
        "module": type(error).__module__,
        "status": getattr(error, "status_code", None),
        "message": str(error),
        "body": getattr(error, "body", None),
    }


def run(scenarios: dict[str, Callable[[], dict[str, Any]]], request_ids: RequestIds, only: list[str]) -> None:
    results: dict[str, Any] = {}
    for name, scenario in scenarios.items():
        if only and name not in only:
            continue
        try:
            result = scenario()
        except Exception as error:  # the test asserts which one, and that none was raised where none may be
            result = {"raised": raised(error)}
        result["request_ids"] = request_ids.take()
        results[name] = result
    json.dump(results, sys.stdout)
