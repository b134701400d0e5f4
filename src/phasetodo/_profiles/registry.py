"""A profile is a value: how one ``todo_write`` call is parsed, applied and reported.

Every entry point takes ``profile=`` as a :class:`Profile` or a built-in name
(resolved by :func:`phasetodo._profiles.builtin.resolve`), and every call runs
through :meth:`~phasetodo.tool.Options.run`; nothing else tells profiles apart.
A new profile is one new value (its own schema, prompt, parse, apply and report)
plus its tests.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs

from .._core.engine import Outcome
from .._core.model import Phase, Renewal, Task
from .result import Storage, ToolResult

__all__ = ["CallContext", "Profile"]


@attrs.frozen
class CallContext:
    """Who makes a call and on what: what a profile's ``apply`` may need beyond the ops.

    ``agent`` is the writing agent (``None`` for a single-agent list, or a
    person on a shared plan); ``lead`` the agent that leads a shared plan;
    ``scope`` the one phase the call may see and change (``None``: all);
    ``now`` the call's time (a session's clock, the time its event records) and
    ``lease`` how many seconds the caller's claim lasts after this call
    (``None``: claims do not lapse); ``seen`` the list as the caller last saw it
    (a shared plan's summary opens with what changed since); ``renewals`` the
    heartbeats' later deadlines of claims, by task id, that the store keeps beside the log.
    """

    agent: str | None = None
    lead: str | None = None
    scope: str | None = None
    now: float | None = None
    lease: float | None = None
    seen: tuple[Phase, ...] | None = attrs.field(default=None, eq=False, repr=False)
    renewals: Mapping[str, Renewal] = attrs.field(factory=dict, eq=False, repr=False)


@attrs.frozen
class Profile:
    """One behaviour of ``todo_write``.

    * ``schema``: the parameter JSON Schema the model is given;
    * ``description``: the prompt the model reads;
    * ``parse(params)``: validate the arguments and build the ops (raises
      :class:`~phasetodo.InvalidParams`, applying nothing);
    * ``apply(phases, ops, call)``: run the ops on the phases for the :class:`CallContext`,
      returning an :class:`Outcome`;
    * ``report(outcome, storage)``: the call's :class:`ToolResult`;
    * ``atomic``: a call with errors is an error result and changes nothing
      (a session appends nothing for it);
    * ``shared``: many agents write one list (team plans): a session records
      the plan's lead instead of an owner that shuts other agents out, and
      keeps closed tasks when it is reopened;
    * ``repair(phases)``: what a person's edit becomes in this profile (may
      raise :class:`~phasetodo.InvalidPhases`); ``None`` keeps it as it is;
    * ``read(phases, call)``: the text a read-only look at the list shows the
      caller (``todo_read``); ``None`` means the reference's summary;
    * ``settled(task)``: whether a task is finished for good: auto-clear removes
      it once its delay passes and the stop reminder does not list it (a blocked
      task is never listed either); ``None``: completed and abandoned tasks;
    * ``own_json``: the params and ``details.phases`` have the profile's own JSON
      shape (the ``todo`` profile's): a session logs what a write changed rather
      than its ops, and keeps a write's ``details`` whole to answer its retry;
    * ``person``: the profile a person's edits run in (the command, the board:
      ``{"ops": [...]}``); ``None``: the team profile on a shared plan, else parity;
    * ``load(items)``: reads a list given as JSON in the profile's own shape (``None``:
      the engine's codec; the ``todo`` profile reads ``blocker`` and ``droppedBy``);
    * ``takes_json``: ``apply`` reads a list of JSON dicts straight into its working copy
      (the engine's ``load``, which names each malformed place), so ``todo_write`` hands
      such a list over as it is, and its result's values are frozen only if read;
    * ``tool``: the name of the tool hosts register to run the profile's calls
      (``todo_write``; the ``todo`` profile's one-op tool is ``todo``), what reminders and
      servers tell the model to call.
    """

    name: str
    schema: Mapping[str, Any] = attrs.field(repr=False)
    description: str = attrs.field(repr=False)
    parse: Callable[[object], Sequence[Any]] = attrs.field(repr=False)
    apply: Callable[[tuple[Phase, ...], Sequence[Any], CallContext], Outcome] = attrs.field(repr=False)
    report: Callable[[Outcome, Storage], ToolResult] = attrs.field(repr=False)
    atomic: bool = False
    shared: bool = False
    repair: Callable[[tuple[Phase, ...]], tuple[Phase, ...]] | None = attrs.field(default=None, repr=False)
    read: Callable[[tuple[Phase, ...], CallContext], str] | None = attrs.field(default=None, repr=False)
    settled: Callable[[Task], bool] | None = attrs.field(default=None, repr=False)
    own_json: bool = False
    person: Profile | None = attrs.field(default=None, repr=False)
    load: Callable[[Sequence[Any]], tuple[Phase, ...]] | None = attrs.field(default=None, repr=False)
    takes_json: bool = False
    tool: str = "todo_write"

    def is_settled(self, task: Task) -> bool:
        """Whether ``task`` is finished for good in this profile (see ``settled``)."""
        return task.status.is_closed if self.settled is None else self.settled(task)

