"""A loop that fails the same way many times a second writes it once, then now and then, then that it works."""

from __future__ import annotations

import logging
import time

import pytest

from bemtevi.infra.failure_log import RepeatedFailureLog

log = logging.getLogger("bemtevi.tests.failure_log")


def fail(failures: RepeatedFailureLog, kind: str, times: int) -> None:
    for turn in range(times):
        try:
            raise ConnectionError(f"the broker is away (turn {turn})")
        except ConnectionError:
            failures.failed(kind, "reading %s failed", "replies")


def lines(caplog: pytest.LogCaptureFixture, level: str) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == log.name and r.levelname == level]


def test_a_failure_repeated_many_times_a_second_is_written_once_with_its_traceback(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger=log.name)
    failures = RepeatedFailureLog(log, "the reader", every=30.0)

    fail(failures, "reading", 200)

    warnings = lines(caplog, "WARNING")
    assert [w.getMessage() for w in warnings] == ["reading replies failed"]
    assert warnings[0].exc_info is not None and "turn 0" in str(warnings[0].exc_info[1])


def test_later_lines_say_how_many_failures_they_stand_for_and_working_again_is_said_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger=log.name)
    failures = RepeatedFailureLog(log, "the reader", every=0.05)

    fail(failures, "reading", 10)
    time.sleep(0.06)
    fail(failures, "reading", 1)
    failures.worked("reading")
    failures.worked("reading")

    assert [w.getMessage() for w in lines(caplog, "WARNING")] == [
        "reading replies failed",
        "reading replies failed (9 more since the last of these lines)",
    ]
    assert [i.getMessage() for i in lines(caplog, "INFO")] == ["the reader: reading works again after 11 failures"]


def test_each_kind_of_failure_is_written_on_its_own(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger=log.name)
    failures = RepeatedFailureLog(log, "the keeper", every=30.0)

    fail(failures, "lease grant", 5)
    fail(failures, "lease return", 5)
    failures.worked("lease grant")
    fail(failures, "lease grant", 5)

    # The grant worked in between, so its next failure is news again; the return's were already said.
    assert len(lines(caplog, "WARNING")) == 3
    assert [i.getMessage() for i in lines(caplog, "INFO")] == ["the keeper: lease grant works again after 5 failures"]
