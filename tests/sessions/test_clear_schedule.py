"""The auto-clear schedule read phase by phase gives each closed task the deadline that
reading the whole list each time would."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from phasetodo import Phase
from phasetodo._schedule import ClearSchedule
from phasetodo.session_changes import TaskKey, closed_tasks
from phasetodo.testing import phases

from ..budget import examples

DELAY = 60.0


def whole(lists: list[tuple[Phase, ...]]) -> list[dict[TaskKey, float]]:
    """The deadlines after each list, read whole: kept while closed, ``now + DELAY`` when new."""
    out: list[dict[TaskKey, float]] = []
    deadlines: dict[TaskKey, float] = {}
    for now, current in enumerate(lists):
        deadlines = {key: deadlines.get(key, now + DELAY) for key in closed_tasks(current)}
        out.append(deadlines)
    return out


@st.composite
def histories(draw: st.DrawFn) -> list[tuple[Phase, ...]]:
    """Lists one after another, each keeping some of the last one's phase values as they were."""
    names = st.text(alphabet="ab", min_size=1, max_size=4)
    lists = [draw(phases(names=names, max_size=3))]
    for _ in range(draw(st.integers(1, 6))):
        fresh = draw(phases(names=names, max_size=3))
        kept = [p for p in lists[-1] if draw(st.booleans())]
        lists.append(tuple(draw(st.permutations([*kept, *fresh]))))
    return lists


@settings(max_examples=examples(300))
@given(lists=histories())
def test_phase_by_phase_matches_reading_the_whole_list(lists: list[tuple[Phase, ...]]) -> None:
    """After every list: the same due tasks at every time, and the same next deadline."""
    schedule = ClearSchedule()
    for now, (current, expected) in enumerate(zip(lists, whole(lists), strict=True)):
        schedule.update(current, float(now), DELAY)
        assert schedule.next() == min(expected.values(), default=None)
        for at in {now + DELAY, now + DELAY + 3, *expected.values()}:
            due = frozenset(key for key, deadline in expected.items() if deadline <= at)
            assert schedule.due(at) == due
            assert schedule.any_due(at) is bool(due)

