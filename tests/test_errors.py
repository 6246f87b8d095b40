"""The one safe description of an exception, and what counts as an interrupt."""

from __future__ import annotations

import asyncio

import pytest

from agenteval_nb.errors import describe_exception, exception_message, is_interrupt


class NoStr(Exception):
    def __str__(self) -> str:
        raise RuntimeError("no")


class ExitingStr(Exception):
    def __str__(self) -> str:
        raise SystemExit(1)


class Interrupting(Exception):
    def __str__(self) -> str:
        raise KeyboardInterrupt


@pytest.mark.parametrize(
    ("exc", "text"),
    [
        (ValueError("  bad value \n"), "ValueError: bad value"),
        (ValueError(), "ValueError"),
        (SystemExit(0), "SystemExit: 0"),
        (GeneratorExit(), "GeneratorExit"),
        (NoStr(), "NoStr: <str() of the exception raised RuntimeError>"),
        (ExitingStr(), "ExitingStr: <str() of the exception raised SystemExit>"),
    ],
)
def test_describe_exception_never_raises(exc, text) -> None:
    assert describe_exception(exc) == text


def test_a_keyboard_interrupt_while_describing_goes_through() -> None:
    with pytest.raises(KeyboardInterrupt):
        exception_message(Interrupting())


def test_interrupts_are_keyboard_interrupt_and_the_cancellation_of_the_running_task() -> None:
    assert is_interrupt(KeyboardInterrupt())
    assert not is_interrupt(SystemExit(0))
    assert not is_interrupt(GeneratorExit())

    async def check() -> tuple[bool, bool]:
        own = is_interrupt(asyncio.CancelledError())  # raised by user code, task not cancelled
        task = asyncio.current_task()
        assert task is not None
        task.cancel()
        try:
            await asyncio.sleep(1)
        except asyncio.CancelledError as exc:
            return own, is_interrupt(exc)
        raise AssertionError("not cancelled")

    assert asyncio.run(check()) == (False, True)
