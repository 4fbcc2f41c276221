"""`HTTPProvider`: what the two HTTP providers share: identity, the non-streamed and streamed
call paths, and the owned client."""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from typing import Any

import httpx

from orkestrel.abort import AbortSignal
from orkestrel.agent.constants import (
    PROVIDER_DEADLINE,
    PROVIDER_RESPONSE_LIMIT,
    PROVIDER_RETRIES,
    PROVIDER_RETRY_WAIT,
    PROVIDER_TIMEOUT,
)
from orkestrel.agent.errors import ProviderAbortError
from orkestrel.agent.providers.http import AbortedStream, Backend, EventStream, OneShotStream
from orkestrel.agent.types import Message, ProviderResult, ProviderStream
from orkestrel.tool import ToolDefinition


class HTTPProvider:
    """Runs a provider's calls over one HTTP endpoint: `generate` posts a non-streamed request,
    `stream` a streamed one, and both stop on their signal with `ProviderAbortError`.

    A subclass says how a request body is built (`request`), how a whole answer is read
    (`parse`) and how a stream is read (`open`).
    """

    def __init__(
        self,
        *,
        model: str,
        base_url: str,
        path: str,
        name: str,
        api_key: str | None,
        headers: Mapping[str, str],
        client: httpx.AsyncClient | None = None,
        id: str | None = None,
        body: Mapping[str, Any] | None = None,
        streaming: bool = True,
        retries: int = PROVIDER_RETRIES,
        wait: float = PROVIDER_RETRY_WAIT,
        limit: int = PROVIDER_RESPONSE_LIMIT,
        timeout: float = PROVIDER_TIMEOUT,
        deadline: float = PROVIDER_DEADLINE,
    ) -> None:
        if not isinstance(model, str) or not model:
            raise ValueError("model must be a non-empty string")
        if not isinstance(base_url, str) or not base_url.startswith(("http://", "https://")):
            raise ValueError("base_url must be an http:// or https:// URL")
        if api_key is not None and not isinstance(api_key, str):
            raise TypeError("api_key must be a string or None")
        self._model = model
        self._base_url = base_url.rstrip("/")
        self._name = name
        self._id = id if id is not None else uuid.uuid4().hex
        self._body = dict(body or {})
        self._streaming = bool(streaming)
        self._backend = Backend(
            url=f"{self._base_url}{path}",
            headers=headers,
            client=client,
            secret=api_key or None,
            retries=retries,
            wait=wait,
            limit=limit,
            timeout=timeout,
            deadline=deadline,
        )

    @property
    def id(self) -> str:
        """The provider's trace label: the given `id`, or a random hex UUID."""
        return self._id

    @property
    def name(self) -> str:
        """The backend name: the given one, else the provider's own (`openai`, `anthropic`)."""
        return self._name

    @property
    def model(self) -> str:
        """The model every request names."""
        return self._model

    @property
    def base_url(self) -> str:
        """The API's base URL, without a trailing slash."""
        return self._base_url

    def request(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolDefinition] | None = None,
        *,
        stream: bool = False,
        think: bool | None = None,
    ) -> dict[str, Any]:
        """Builds the JSON body of one request, exactly as it is sent."""
        raise NotImplementedError

    def parse(self, data: Any) -> ProviderResult:
        """Reads a whole, non-streamed answer into a `ProviderResult`."""
        raise NotImplementedError

    def open(self, body: Mapping[str, Any], signal: AbortSignal) -> EventStream:
        """Makes the stream that reads one streamed answer."""
        raise NotImplementedError

    async def generate(
        self,
        messages: Sequence[Message],
        signal: AbortSignal,
        tools: Sequence[ToolDefinition] | None = None,
        *,
        think: bool | None = None,
    ) -> ProviderResult:
        """Sends one non-streamed request and returns the answer; a signal that aborts first or
        during the call raises `ProviderAbortError`."""
        if signal.aborted:
            raise ProviderAbortError({"content": ""}, signal.reason)
        body = self.request(messages, tools, stream=False, think=think)
        data = None
        with signal.scope():
            data = await self._backend.json(body)
        if signal.aborted:
            raise ProviderAbortError({"content": ""}, signal.reason)
        return self.parse(data)

    def stream(
        self,
        messages: Sequence[Message],
        signal: AbortSignal,
        tools: Sequence[ToolDefinition] | None = None,
        *,
        think: bool | None = None,
    ) -> ProviderStream:
        """Streams one request as deltas; an abort mid-stream raises `ProviderAbortError` holding
        the text, reasoning, finished tool calls and usage that had arrived."""
        if not self._streaming:
            return OneShotStream(lambda: self.generate(messages, signal, tools, think=think))
        if signal.aborted:
            return AbortedStream(signal)
        return self.open(self.request(messages, tools, stream=True, think=think), signal)

    async def aclose(self) -> None:
        """Closes the HTTP client when the provider created it."""
        await self._backend.aclose()

    async def __aenter__(self) -> HTTPProvider:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    def __repr__(self) -> str:
        return f"{type(self).__name__}(model={self._model!r}, base_url={self._base_url!r})"
