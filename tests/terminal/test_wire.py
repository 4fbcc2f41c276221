"""The wire seam, byte for byte: frames written as a browser's EventSource reads them."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from orkestrel.terminal import (
    KEEPALIVE_FRAME,
    SSEParser,
    TerminalError,
    WireEvent,
    encode_event,
    json_text,
    serialize_expire,
    serialize_pending,
    serialize_shutdown,
)

RECORD: Any = {
    "id": "f-1",
    "schema": {"label": "Überprüfung ✓", "fields": [{"control": "confirm", "name": "ok"}]},
    "status": "pending",
    "time": 1700000000000,
    "from": "agent",
    "to": "reviewer",
}


def test_a_pending_frame_is_byte_exact() -> None:
    frame = encode_event(serialize_pending(RECORD))
    assert frame == (
        b"event: pending\nid: f-1\ndata: "
        b'{"id":"f-1","schema":{"label":"\xc3\x9cberpr\xc3\xbcfung \xe2\x9c\x93","fields":'
        b'[{"control":"confirm","name":"ok"}]},"status":"pending","time":1700000000000,'
        b'"from":"agent","to":"reviewer"}\n\n'
    )


def test_expire_shutdown_and_keepalive_frames() -> None:
    assert encode_event(serialize_expire("f-1")) == b'event: expire\ndata: {"id":"f-1"}\n\n'
    assert encode_event(serialize_shutdown()) == b"event: shutdown\ndata: \n\n"
    assert KEEPALIVE_FRAME == b": \n\n"


def test_multi_line_data_becomes_one_data_line_per_line() -> None:
    event: WireEvent = {"event": "note", "data": "a\nb\r\nc\rd"}
    assert encode_event(event) == b"event: note\ndata: a\ndata: b\ndata: c\ndata: d\n\n"


def test_json_text_writes_what_json_stringify_writes() -> None:
    assert json_text({"a": 1.0, "b": 0.5, "c": 1e21, "d": 1.5e-7, "e": -0.0, "f": 10**16}) == (
        '{"a":1,"b":0.5,"c":1e+21,"d":1.5e-7,"e":0,"f":10000000000000000}'
    )
    assert json_text({"nan": float("nan"), "inf": float("inf")}) == '{"nan":null,"inf":null}'
    assert json_text(["\u2028", "é", '"\\']) == '["\u2028","é","\\"\\\\"]'
    assert json_text("\ud83d\ude00") == '"\U0001f600"'
    assert json_text("a\ud800b") == '"a\\ud800b"'
    assert json_text("\udc00") == '"\\udc00"'
    assert (
        encode_event({"event": "x", "data": json_text("\ud800")})
        == b'event: x\ndata: "\\ud800"\n\n'
    )
    assert json_text([True, False, None, (1, 2)]) == "[true,false,null,[1,2]]"
    with pytest.raises(TypeError):
        json_text({"a": object()})


def test_the_parser_reads_every_line_ending_and_skips_comments() -> None:
    parser = SSEParser()
    text = ": hello\r\nevent: a\rid: 1\ndata: x\r\ndata: y\n\n:keepalive\n\nevent: b\ndata:z\r\r"
    assert parser.feed(text) == [
        {"event": "a", "data": "x\ny", "id": "1"},
        {"event": "b", "data": "z"},
    ]
    assert parser.last_id == "1"
    assert parser.feed("data: plain\n\n") == [{"event": "message", "data": "plain"}]


def test_a_crlf_split_across_chunks_is_one_line_end() -> None:
    parser = SSEParser()
    assert parser.feed(b"event: a\r") == []
    assert parser.feed(b"") == []
    assert parser.feed(b"\ndata: 1\r") == []
    assert parser.feed(b"\n\r\n") == [{"event": "a", "data": "1"}]


def test_utf8_split_inside_a_character() -> None:
    frame = encode_event({"event": "x", "data": "✓é"})
    parser = SSEParser()
    events = [
        event for index in range(len(frame)) for event in parser.feed(frame[index : index + 1])
    ]
    assert events == [{"event": "x", "data": "✓é"}]


def test_the_buffer_limit_refuses_an_endless_line_or_event() -> None:
    parser = SSEParser(limit=100)
    with pytest.raises(TerminalError) as caught:
        parser.feed("data: " + "x" * 200)
    assert caught.value.code == "LIMIT"
    parser = SSEParser(limit=100)
    for _ in range(4):
        parser.feed("data: " + "x" * 20 + "\n")
    with pytest.raises(TerminalError):
        parser.feed("data: " + "x" * 20 + "\n")


FRAME_TEXT = st.text(st.characters(blacklist_categories=["Cs"]), max_size=40)


@given(
    st.lists(
        st.tuples(st.sampled_from(["pending", "expire", "x"]), FRAME_TEXT), min_size=1, max_size=5
    ),
    st.lists(st.integers(1, 30), max_size=20),
)
def test_any_chunking_reads_back_the_events_written(
    events: list[tuple[str, str]], cuts: list[int]
) -> None:
    frames = b"".join(
        encode_event({"event": name, "data": data}) + b": \n\n" for name, data in events
    )
    parser = SSEParser()
    read: list[WireEvent] = []
    position = 0
    for cut in cuts:
        read.extend(parser.feed(frames[position : position + cut]))
        position += cut
    read.extend(parser.feed(frames[position:]))
    normalized = [data.replace("\r\n", "\n").replace("\r", "\n") for _, data in events]
    assert [(event["event"], event["data"]) for event in read] == list(
        zip([n for n, _ in events], normalized, strict=True)
    )
