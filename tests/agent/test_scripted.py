"""`ScriptedProvider`: turns played back in order, calls recorded, streams in deltas."""

from __future__ import annotations

from typing import Any

import pytest

from orkestrel.abort import AbortController
from orkestrel.agent import ProviderAbortError, ProviderError, ScriptedProvider

pytestmark = pytest.mark.anyio


async def test_turns_of_every_kind_play_back_in_order() -> None:
    async def later(messages: Any, tools: Any, signal: Any) -> str:
        return f"saw {len(messages)}"

    failure = ProviderError("SERVER", "down")
    provider = ScriptedProvider(
        ["text", {"content": "dict", "thinking": "t"}, lambda m, t, s: "sync", later, failure],
        id="p1",
    )
    signal = AbortController().signal
    message: Any = {"id": "m", "role": "user", "content": "hi"}
    assert await provider.generate([message], signal) == {"content": "text"}
    assert await provider.generate([], signal) == {"content": "dict", "thinking": "t"}
    assert await provider.generate([], signal) == {"content": "sync"}
    assert await provider.generate([message, message], signal) == {"content": "saw 2"}
    with pytest.raises(ProviderError) as error:
        await provider.generate([], signal)
    assert error.value is failure
    with pytest.raises(ProviderError, match="script exhausted"):
        await provider.generate([], signal)
    assert len(provider.calls) == 6
    assert provider.calls[0]["messages"] == [message]
    assert provider.id == "p1"
    assert provider.name == "scripted"
    assert provider.stream is None
    provider.push("more")
    assert provider.remaining == 1
    assert repr(provider) == "ScriptedProvider(name='scripted', remaining=1)"


async def test_an_aborted_signal_is_not_recorded() -> None:
    provider = ScriptedProvider(["never"], stream=True)
    controller = AbortController()
    controller.abort("gone")
    with pytest.raises(ProviderAbortError) as error:
        await provider.generate([], controller.signal)
    assert error.value.partial == {"content": ""}
    assert error.value.reason == "gone"
    assert provider.stream is not None
    with pytest.raises(ProviderAbortError):
        async for _ in provider.stream([], controller.signal):
            pass
    assert provider.calls == []
    assert provider.remaining == 1


async def test_a_stream_comes_out_in_chunks() -> None:
    provider = ScriptedProvider([{"content": "abcdefghij", "thinking": "hm"}], stream=True, chunk=4)
    assert provider.stream is not None
    stream = provider.stream([], AbortController().signal, None)
    with pytest.raises(RuntimeError, match="not finished"):
        _ = stream.result
    deltas = [delta async for delta in stream]
    assert deltas == [
        {"type": "thinking", "text": "hm"},
        {"type": "content", "text": "abcd"},
        {"type": "content", "text": "efgh"},
        {"type": "content", "text": "ij"},
    ]
    assert stream.result == {"content": "abcdefghij", "thinking": "hm"}
    with pytest.raises(ValueError, match="chunk"):
        ScriptedProvider(chunk=0)
