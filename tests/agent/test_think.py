"""`ThinkSplitter`: reasoning inside `<think>…</think>` kept apart from the answer, whatever way
the deltas are cut."""

from __future__ import annotations

import itertools
import re

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from orkestrel.agent import THINK_CLOSE, THINK_OPEN, ThinkSplitter


def run(pieces: list[str]) -> tuple[str, str, str]:
    splitter = ThinkSplitter()
    emitted = "".join(splitter.split(piece) for piece in pieces) + splitter.flush()
    return splitter.content, splitter.thinking, emitted


def cuts(text: str, points: list[int]) -> list[str]:
    marks = sorted({0, len(text), *(p % (len(text) + 1) for p in points)})
    return [text[a:b] for a, b in itertools.pairwise(marks)]


@pytest.mark.parametrize(
    ("text", "content", "thinking"),
    [
        ("plain answer", "plain answer", ""),
        ("<think>plan</think>answer", "answer", "plan"),
        ("<think>plan</think>\n\n  answer", "answer", "plan"),
        ("before<think>a</think>mid<think>b</think>after", "beforemidafter", "ab"),
        ("reasoning first</think>answer", "answer", "reasoning first"),
        ("<think>never closed", "", "never closed"),
        ("an unfinished <thi", "an unfinished <thi", ""),
        ("a < b and c </ d", "a < b and c </ d", ""),
        ("<think>x</think>a stray </think> stays", "a stray </think> stays", "x"),
        ("", "", ""),
        # the text around an empty span can join into a tag again; it stays content
        ("<think<think></think>>", "<think>", ""),
        ("<<think></think>think>", "<think>", ""),
    ],
)
def test_known_texts(text: str, content: str, thinking: str) -> None:
    assert run([text])[:2] == (content, thinking)


def test_every_byte_boundary_gives_the_same_split() -> None:
    text = "<think>weigh the options</think>\n\nThe answer is <b>42</b>."
    whole = run([text])
    for cut in range(len(text) + 1):
        assert run([text[:cut], text[cut:]]) == whole, cut
    assert run(list(text)) == whole
    assert whole[0] == whole[2] == "The answer is <b>42</b>."


def test_a_leading_close_reclassifies_what_was_emitted() -> None:
    splitter = ThinkSplitter()
    assert splitter.split("thinking aloud") == "thinking aloud"
    assert splitter.split("</think>Answer") == "Answer"
    assert splitter.flush() == ""
    assert (splitter.content, splitter.thinking) == ("Answer", "thinking aloud")


@given(
    st.lists(
        st.sampled_from(["a", " ", "\n", "<", ">", "/", "think", THINK_OPEN, THINK_CLOSE, "é"]),
        max_size=30,
    ).map("".join),
    st.lists(st.integers(min_value=0, max_value=400), max_size=8),
)
@example("<<think></think>think>", [])
@example("<<think></think>think>", [1, 8])
def test_splitting_never_changes_the_result(text: str, points: list[int]) -> None:
    whole = run([text])
    split = run(cuts(text, points))
    assert split[:2] == whole[:2]
    if THINK_CLOSE not in text.split(THINK_OPEN, 1)[0]:
        assert split[2] == split[0], "without a leading close, the deltas are the content"
    # Content is the text outside the tags, so it can spell a tag only from a `<` of that text
    # (a span cut out from between `<` and `think>` joins them, as the known texts show).
    if "<" not in re.sub(f"{THINK_OPEN}|{THINK_CLOSE}", "", text):
        assert THINK_OPEN not in whole[0]
