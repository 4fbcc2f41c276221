"""The runner: phase order, concurrency, attempts, deadlines, bail, run-level stop, results,
inputs, the JSON gate and the resolution gate, under asyncio and trio."""

from __future__ import annotations

import threading
from types import MappingProxyType
from typing import Any

import anyio
import anyio.lowlevel
import pytest

from orkestrel.abort import AbortController
from orkestrel.workflow import (
    TaskControllerInterface,
    WorkflowError,
    WorkflowRunner,
    is_workflow_error,
)
from workflow.samples import RecordingStore, phase, run, statuses, task, workflow

pytestmark = pytest.mark.anyio


async def test_a_tree_without_tasks_completes_with_nothing_to_count() -> None:
    for definition in (workflow(), workflow(phase("a"), phase("b"))):
        result = await run(definition)
        assert (result.status, result.results, result.durable, result.fault) == (
            "completed",
            (),
            None,
            None,
        )
    assert (await run(workflow(phase("a")))).workflow.snapshot()["phases"][0]["status"] == (
        "completed"
    )


async def test_a_task_without_behavior_completes_with_none() -> None:
    result = await run(workflow(phase("p", task("a"))))
    (only,) = result.results
    assert (only.task.id, only.status, only.result) == (
        "a",
        "completed",
        {"success": True, "value": None},
    )


async def test_phases_run_one_after_another() -> None:
    events: list[str] = []

    async def work(controller: TaskControllerInterface) -> str:
        events.append(f"start {controller.task.id}")
        await anyio.lowlevel.checkpoint()
        await anyio.lowlevel.checkpoint()
        events.append(f"end {controller.task.id}")
        return controller.task.id

    definition = workflow(
        phase("one", task("a", "work"), task("b", "work")),
        phase("two", task("c", "work"), task("d", "work")),
    )
    result = await run(definition, functions={"work": work})
    first = [event for event in events if event.endswith(("a", "b"))]
    later = [event for event in events if event.endswith(("c", "d"))]
    assert events.index(later[0]) > max(events.index(event) for event in first)
    assert [item.result["value"] for item in result.results] == ["a", "b", "c", "d"]


async def test_concurrency_never_exceeds_the_cap_and_reaches_it() -> None:
    cap = 3
    running = 0
    highest = 0
    full = anyio.Event()

    async def work(controller: TaskControllerInterface) -> None:
        nonlocal running, highest
        running += 1
        highest = max(highest, running)
        if running == cap:
            full.set()
        await full.wait()
        await anyio.lowlevel.checkpoint()
        running -= 1

    tasks = [task(f"t{index}", "work") for index in range(10)]
    result = await run(workflow(phase("p", *tasks, concurrency=cap)), functions={"work": work})
    assert (highest, len(result.results), result.status) == (cap, 10, "completed")


async def test_concurrency_one_runs_in_definition_order() -> None:
    order: list[str] = []

    async def work(controller: TaskControllerInterface) -> None:
        order.append(controller.task.id)
        await anyio.lowlevel.checkpoint()

    tasks = [task(f"t{index}", "work") for index in range(6)]
    await run(workflow(phase("p", *tasks, concurrency=1)), functions={"work": work})
    assert order == [f"t{index}" for index in range(6)]


async def test_retries_give_one_based_attempts_until_one_succeeds() -> None:
    seen: list[int] = []

    def flaky(controller: TaskControllerInterface) -> str:
        seen.append(controller.attempt)
        if controller.attempt < 3:
            raise RuntimeError(f"attempt {controller.attempt} failed")
        return "third time"

    result = await run(
        workflow(phase("p", task("a", "flaky", retries=2))), functions={"flaky": flaky}
    )
    assert seen == [1, 2, 3]
    assert result.results[0].result == {"success": True, "value": "third time"}
    assert result.workflow.snapshot()["phases"][0]["tasks"][0]["attempts"] == 3


async def test_the_last_failure_settles_the_task_failed() -> None:
    def broken(controller: TaskControllerInterface) -> None:
        raise ValueError(f"broken on attempt {controller.attempt}")

    def silent(controller: TaskControllerInterface) -> None:
        raise KeyError()

    definition = workflow(phase("p", task("a", "broken", retries=1), task("b", "silent")))
    result = await run(definition, functions={"broken": broken, "silent": silent})
    assert [item.result for item in result.results] == [
        {"success": False, "error": {"origin": "handler", "message": "broken on attempt 2"}},
        {"success": False, "error": {"origin": "handler", "message": "KeyError"}},
    ]
    assert result.status == "completed"


async def test_a_function_is_called_with_the_controller_only() -> None:
    def nothing() -> None:
        return None

    result = await run(workflow(phase("p", task("a", "nothing"))), functions={"nothing": nothing})
    error = result.results[0].result["error"]
    assert error["origin"] == "handler"
    assert "takes 0 positional arguments but 1 was given" in error["message"]


async def test_an_async_function_is_cancelled_at_its_deadline() -> None:
    reached: list[str] = []

    async def hang(controller: TaskControllerInterface) -> None:
        try:
            await anyio.sleep_forever()
        finally:
            reached.append("cancelled" if controller.aborted else "not aborted")

    result = await run(
        workflow(phase("p", task("a", "hang", timeout=20, retries=1))), functions={"hang": hang}
    )
    assert result.results[0].result == {
        "success": False,
        "error": {"origin": "timeout", "message": "task 'a' timed out after 20 ms"},
    }
    assert reached == ["cancelled", "cancelled"]


async def test_a_sync_function_late_result_is_dropped_after_its_deadline() -> None:
    release = threading.Event()
    finished = threading.Event()
    loop_thread = threading.get_ident()
    threads: list[int] = []

    def blocking(controller: TaskControllerInterface) -> str:
        threads.append(threading.get_ident())
        release.wait(30)
        finished.set()
        return "late"

    result = await run(
        workflow(phase("p", task("a", "blocking", timeout=20))), functions={"blocking": blocking}
    )
    assert result.results[0].result["error"]["origin"] == "timeout"
    assert not finished.is_set()
    release.set()
    await anyio.to_thread.run_sync(finished.wait, 30)
    assert result.results[0].result["success"] is False
    assert threads
    assert threads[0] != loop_thread


async def test_a_zero_timeout_means_no_deadline() -> None:
    async def slow(controller: TaskControllerInterface) -> str:
        await anyio.sleep(0.01)
        return "done"

    result = await run(workflow(phase("p", task("a", "slow", timeout=0))), functions={"slow": slow})
    assert result.results[0].result == {"success": True, "value": "done"}


BAIL_CASES = [
    # (workflow bail, phase bail, workflow status, statuses)
    (None, None, "completed", {"ok": "completed", "bad": "failed", "later": "completed"}),
    (False, None, "completed", {"ok": "completed", "bad": "failed", "later": "completed"}),
    (True, None, "failed", {"ok": "completed", "bad": "failed", "later": "skipped"}),
    (True, False, "completed", {"ok": "completed", "bad": "failed", "later": "completed"}),
    (False, True, "failed", {"ok": "completed", "bad": "failed", "later": "skipped"}),
]


@pytest.mark.parametrize(("outer", "inner", "status", "expected"), BAIL_CASES)
async def test_bail_decides_whether_a_failure_stops_the_run(
    outer: bool | None, inner: bool | None, status: str, expected: dict[str, str]
) -> None:
    def bad(controller: TaskControllerInterface) -> None:
        raise RuntimeError("bad")

    first = phase("one", task("ok"), task("bad", "bad"), concurrency=1)
    if inner is not None:
        first["bail"] = inner
    definition = workflow(first, phase("two", task("later")))
    if outer is not None:
        definition["bail"] = outer
    result = await run(definition, functions={"bad": bad})
    assert result.status == status
    assert statuses(result.workflow.snapshot()) == expected
    assert [item.task.id for item in result.results] == [
        name for name, value in expected.items() if value in ("completed", "failed")
    ]


async def test_bail_cancels_running_siblings_and_skips_the_rest() -> None:
    started = anyio.Event()
    cancelled: list[bool] = []

    async def hang(controller: TaskControllerInterface) -> None:
        started.set()
        try:
            await anyio.sleep_forever()
        finally:
            cancelled.append(controller.aborted)

    async def bad(controller: TaskControllerInterface) -> None:
        await started.wait()
        raise RuntimeError("bad")

    first = phase("one", task("hang", "hang"), task("bad", "bad"), task("never", "hang"))
    first["concurrency"] = 2
    definition = workflow(first, phase("two", task("later")), bail=True)
    result = await run(definition, functions={"hang": hang, "bad": bad})
    assert result.status == "failed"
    assert statuses(result.workflow.snapshot()) == {
        "hang": "skipped",
        "bad": "failed",
        "never": "skipped",
        "later": "skipped",
    }
    assert cancelled == [True]
    assert [item.task.id for item in result.results] == ["bad"]


async def test_a_run_level_signal_stops_the_run() -> None:
    started = anyio.Event()
    stop = AbortController()
    cancelled: list[bool] = []

    async def hang(controller: TaskControllerInterface) -> None:
        started.set()
        try:
            await anyio.sleep_forever()
        finally:
            cancelled.append(controller.signal.aborted)

    async def stopper() -> None:
        await started.wait()
        stop.abort("user")

    definition = workflow(
        phase("one", task("done"), task("hang", "hang")), phase("two", task("later"))
    )
    async with anyio.create_task_group() as group:
        group.start_soon(stopper)
        result = await run(definition, functions={"hang": hang}, signal=stop.signal)
    assert result.status == "stopped"
    assert statuses(result.workflow.snapshot()) == {
        "done": "completed",
        "hang": "skipped",
        "later": "skipped",
    }
    assert cancelled == [True]
    assert [item.task.id for item in result.results] == ["done"]


async def test_a_run_level_timeout_stops_the_run() -> None:
    async def hang(controller: TaskControllerInterface) -> None:
        await anyio.sleep_forever()

    definition = workflow(phase("one", task("hang", "hang")), phase("two", task("later")))
    result = await run(definition, functions={"hang": hang}, timeout=20)
    assert (result.status, result.results) == ("stopped", ())
    assert statuses(result.workflow.snapshot()) == {"hang": "skipped", "later": "skipped"}


async def test_an_already_aborted_signal_runs_nothing() -> None:
    stop = AbortController()
    stop.abort()
    calls: list[str] = []
    definition = workflow(phase("one", task("a", "work")))
    result = await run(definition, functions={"work": calls.append}, signal=stop.signal)
    assert (result.status, result.results, calls) == ("stopped", (), [])


@pytest.mark.parametrize(
    "value",
    [{1, 2}, float("nan"), (1, 2), object(), {"key": float("inf")}, {3: "int key"}],
    ids=["set", "nan", "tuple", "object", "inf", "int-key"],
)
async def test_a_value_that_is_not_json_fails_the_task(value: Any) -> None:
    result = await run(
        workflow(phase("p", task("a", "odd"))), functions={"odd": lambda controller: value}
    )
    assert result.results[0].result == {
        "success": False,
        "error": {"origin": "handler", "message": "task 'a' returned a non-JSON value"},
    }


async def test_a_value_is_copied_out_of_the_function() -> None:
    kept = {"rows": [1, 2]}
    result = await run(
        workflow(phase("p", task("a", "rows"))), functions={"rows": lambda controller: kept}
    )
    kept["rows"].append(3)
    assert result.results[0].result["value"] == {"rows": [1, 2]}


async def test_inputs_reach_the_controller_with_a_fresh_copy_per_attempt() -> None:
    seen: list[dict[str, Any]] = []

    def record(controller: TaskControllerInterface) -> None:
        seen.append(dict(controller.input))
        controller.input["touched"] = True
        if controller.attempt == 1:
            raise RuntimeError("again")

    definition = workflow(
        phase(
            "p",
            task("given", "record", input={"from": "definition"}, retries=1),
            task("override", "record", input={"from": "definition"}),
            task("bare", "record"),
            concurrency=1,
        )
    )
    inputs = {"override": {"from": "inputs"}}
    result = await run(definition, functions={"record": record}, inputs=inputs)
    assert seen == [{"from": "definition"}, {"from": "definition"}, {"from": "inputs"}, {}]
    snapshot = result.workflow.snapshot()
    assert [t["metadata"] for t in snapshot["phases"][0]["tasks"]] == [
        {"from": "definition"},
        {"from": "inputs"},
        {},
    ]


async def test_the_controller_carries_lineage_and_earlier_results() -> None:
    seen: dict[str, Any] = {}

    def look(controller: TaskControllerInterface) -> str:
        context = controller.task
        seen[context.id] = (
            context.name,
            context.phase.id,
            context.phase.workflow.id,
            [item.task.id for item in controller.results()],
        )
        return context.id

    definition = workflow(
        phase("one", task("a", "look"), task("b", "look")),
        phase("two", task("c", "look")),
        id="lineage",
    )
    await run(definition, functions={"look": look})
    assert seen == {
        "a": ("A", "one", "lineage", []),
        "b": ("B", "one", "lineage", []),
        "c": ("C", "two", "lineage", ["a", "b"]),
    }


@pytest.mark.parametrize("name", ["get", "__class__", "keys", "__proto__", "items", "__dict__"])
async def test_unregistered_names_never_resolve_through_the_mapping(name: str) -> None:
    store = RecordingStore()
    called: list[str] = []
    registry = MappingProxyType({"other": called.append})
    with pytest.raises(WorkflowError) as caught:
        await run(workflow(phase("p", task("a", name))), functions=registry, store=store)
    assert caught.value.code == "TRANSITION"
    assert str(caught.value) == f"task 'a' behavior '{name}' is not registered"
    assert caught.value.context == {"task": "a", "behavior": name}
    assert (store.writes, called) == ([], [])
    result = await run(
        workflow(phase("p", task("a", name))),
        functions=MappingProxyType({name: lambda controller: name}),
    )
    assert result.results[0].result["value"] == name


async def test_the_resolution_gate_runs_before_any_task_or_write() -> None:
    store = RecordingStore()
    called: list[str] = []
    definition = workflow(phase("one", task("a", "known")), phase("two", task("b", "ghost")))
    with pytest.raises(WorkflowError) as caught:
        await run(definition, functions={"known": called.append}, store=store)
    assert is_workflow_error(caught.value)
    assert (caught.value.code, store.writes, called) == ("TRANSITION", [], [])
    with pytest.raises(WorkflowError, match="not registered"):
        await run(workflow(phase("p", task("a", "anything"))))
    with pytest.raises(WorkflowError, match="is not callable"):
        await run(workflow(phase("p", task("a", "text"))), functions={"text": "not a function"})


@pytest.mark.parametrize(
    ("definition", "message"),
    [
        ({"id": "w", "name": "W"}, "malformed workflow definition"),
        (workflow(phase("p", task(""))), "malformed workflow definition"),
        (workflow(phase("p", task("a", retries=-1))), "malformed workflow definition"),
        (workflow(phase("p", task("a", retries=101))), "malformed workflow definition"),
        (workflow(phase("p", task("a", timeout=2**31))), "malformed workflow definition"),
        (workflow(phase("p", concurrency=0)), "malformed workflow definition"),
        (workflow(phase("p", task("a", extra=1))), "malformed workflow definition"),
        (workflow(phase("p"), phase("p")), "phase id 'p' appears twice"),
        (workflow(phase("p", task("a")), phase("q", task("a"))), "task id 'a' appears twice"),
        ("not a definition", "malformed workflow definition"),
    ],
)
async def test_a_definition_that_cannot_run_is_refused_with_schedule(
    definition: Any, message: str
) -> None:
    with pytest.raises(WorkflowError) as caught:
        await run(definition)
    assert (caught.value.code, str(caught.value)) == ("SCHEDULE", message)


async def test_malformed_definitions_carry_their_faults() -> None:
    with pytest.raises(WorkflowError) as caught:
        await run(workflow(phase("p", task(""))))
    assert caught.value.context is not None
    assert caught.value.context["faults"][0]["path"] == ["phases", "0", "tasks", "0", "id"]


async def test_a_definition_over_the_node_budget_names_the_budget() -> None:
    with pytest.raises(WorkflowError) as caught:
        await run(workflow(phase("p", task("a", input={"rows": [0] * 300_000}))))
    assert (caught.value.code, str(caught.value)) == (
        "SCHEDULE",
        "malformed workflow definition: it holds more than 262144 JSON values "
        "(the node budget, CLONE_NODE_LIMIT)",
    )


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"functions": [print]}, "functions must be a mapping"),
        ({"signal": object()}, "signal must be an AbortSignal"),
        ({"timeout": -1}, "timeout must be a whole number"),
        ({"timeout": 0.5}, "timeout must be a whole number"),
        ({"inputs": [1]}, "inputs must map task ids"),
        ({"inputs": {"ghost": {}}}, "inputs name task 'ghost'"),
        ({"inputs": {"a": [1]}}, "the input of task 'a' is not a JSON object"),
        ({"resume": True}, "resume needs the store"),
        ({"resume": "yes"}, "resume must be a bool"),
    ],
)
async def test_malformed_run_options_are_refused_with_schedule(
    options: dict[str, Any], message: str
) -> None:
    with pytest.raises(WorkflowError, match=message) as caught:
        await run(workflow(phase("p", task("a"))), **options)
    assert caught.value.code == "SCHEDULE"


async def test_one_runner_serves_concurrent_runs() -> None:
    runner = WorkflowRunner()
    results: list[Any] = []

    async def one(index: int) -> None:
        async def work(controller: TaskControllerInterface) -> int:
            await anyio.lowlevel.checkpoint()
            return index

        definition = workflow(phase("p", task("a", "work")), id=f"run-{index}")
        results.append(await runner.execute(definition, functions={"work": work}))

    async with anyio.create_task_group() as group:
        for index in range(5):
            group.start_soon(one, index)
    assert sorted(result.results[0].result["value"] for result in results) == list(range(5))
    assert repr(runner) == "WorkflowRunner(max_answer_bytes=33554432, lease_ttl=30000)"


async def test_a_signal_aborted_from_another_thread_stops_the_run() -> None:
    stop = AbortController()
    started = threading.Event()

    async def hang(controller: TaskControllerInterface) -> None:
        started.set()
        await anyio.sleep_forever()

    def abort_from_a_thread() -> None:
        started.wait(30)
        stop.abort("from a thread")

    definition = workflow(phase("one", task("hang", "hang")), phase("two", task("later")))
    async with anyio.create_task_group() as group:
        group.start_soon(anyio.to_thread.run_sync, abort_from_a_thread)
        result = await run(definition, functions={"hang": hang}, signal=stop.signal)
    assert result.status == "stopped"
    assert statuses(result.workflow.snapshot()) == {"hang": "skipped", "later": "skipped"}


async def test_a_run_timeout_abandons_a_blocked_sync_function() -> None:
    release = threading.Event()

    def blocked(controller: TaskControllerInterface) -> None:
        release.wait(30)

    try:
        result = await run(
            workflow(phase("p", task("a", "blocked"))), functions={"blocked": blocked}, timeout=20
        )
    finally:
        release.set()
    assert (result.status, result.results) == ("stopped", ())


async def test_progress_is_heard_after_each_task_settles() -> None:
    heard: list[tuple[int, int, str]] = []

    async def hear(done: int, total: int, message: str) -> None:
        heard.append((done, total, message))

    async def fail(controller: TaskControllerInterface) -> None:
        raise RuntimeError("no")

    definition = workflow(
        phase("p", task("a")), phase("q", task("b", behavior="fail")), phase("r", task("c"))
    )
    await run(definition, functions={"fail": fail}, progress=hear)
    assert heard == [
        (1, 3, "1 of 3 tasks settled: 'a' completed"),
        (2, 3, "2 of 3 tasks settled: 'b' failed"),
        (3, 3, "3 of 3 tasks settled: 'c' completed"),
    ]
