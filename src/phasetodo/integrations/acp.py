"""The plan in an ACP editor: phasetodo phases as Agent Client Protocol plan updates.

ACP (the Agent Client Protocol, from Zed) shows an agent's live plan through
``session/update`` notifications. :func:`plan_update` turns phases into the
``update`` object of one such notification, as JSON-ready data:

- the stable form ``{"sessionUpdate": "plan", "entries": [...]}``, or
- with ``plan_id``, the newer form ``{"sessionUpdate": "plan_update", "plan":
  {"type": "items", "planId": ..., "entries": [...]}}`` (an unstable part of
  ACP that clients advertise with the ``plan`` client capability).

Each entry is ``{"content", "priority", "status"}``; each update carries the
whole plan, which the client puts in place of the one it showed. The phases
are flattened in order. Statuses map as follows (:data:`STATUS_MAP`):

============  ===============  ===========================================
phasetodo     ACP status       content
============  ===============  ===========================================
pending       ``pending``      the task's content
in_progress   ``in_progress``  the task's content
completed     ``completed``    the task's content
abandoned     ``completed``    ``[abandoned] `` + content
blocked       ``completed``    ``[blocked: reason] `` + content (team plans)
============  ===============  ===========================================

ACP has only three statuses. An abandoned or blocked task is never shown as
``pending`` or ``in_progress``, which would tell the reader that the agent is
about to do it or doing it; it is shown closed out, and its prefix says why.

Priorities come from the host's ``priority(phase, task, index)`` callable, or
from the phase order: the first phase ``high``, the second ``medium``, every
later one ``low``.

:func:`stream_plan` follows a :class:`~phasetodo.Session` through its feed
(:meth:`~phasetodo.Session.awatch`) and sends one update per change on an
ACP agent-side connection, so that an editor's plan panel follows a plan that
many agents and people change. The newer form is for clients that advertise the
``plan`` client capability in ``initialize``; given those capabilities
(``capabilities=``), :func:`stream_plan` refuses to send it to a client that
does not (:func:`supports_plan_update`).

:func:`plan_update` is plain data and needs nothing more than phasetodo;
:func:`stream_plan` and :func:`validate_update` need the ``agent-client-protocol``
package (the ``acp`` extra), imported when they are first called.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, Literal, Protocol

from .._core.codec import as_phases
from .._core.model import Phase, Status, Task
from ..errors import InvalidOption, InvalidOptionType, install_hint

if TYPE_CHECKING:
    from acp.schema import AgentPlanContentUpdate, AgentPlanUpdate, ClientCapabilities

    from ..session import Session

__all__ = [
    "PRIORITIES",
    "STATUS_MAP",
    "Priority",
    "PriorityFn",
    "plan_update",
    "stream_plan",
    "supports_plan_update",
    "validate_update",
]

#: An ACP plan entry's priority.
Priority = Literal["high", "medium", "low"]
#: A host's priority rule: ``priority(phase, task, phase_index)``.
PriorityFn = Callable[[Phase, Task, int], str]
#: The priorities ACP knows, highest first; phase ``i`` gets ``PRIORITIES[min(i, 2)]`` by default.
PRIORITIES: tuple[Priority, ...] = ("high", "medium", "low")

#: phasetodo status -> (ACP status, prefix of the entry's content).
STATUS_MAP: Mapping[Status, tuple[str, str]] = {
    Status.PENDING: ("pending", ""),
    Status.IN_PROGRESS: ("in_progress", ""),
    Status.COMPLETED: ("completed", ""),
    Status.ABANDONED: ("completed", "[abandoned] "),
    Status.BLOCKED: ("completed", "[blocked] "),
}

_EXTRA = f"phasetodo.integrations.acp needs the agent-client-protocol package: {install_hint('acp')}"


def _sdk_schema() -> Any:
    """The SDK's ``acp.schema`` module, or a clear error naming the extra."""
    try:
        import acp.schema
    except ModuleNotFoundError as error:
        raise ModuleNotFoundError(_EXTRA, name=error.name) from error
    return acp.schema


def _by_phase_order(phase: Phase, task: Task, index: int) -> str:
    return PRIORITIES[min(index, len(PRIORITIES) - 1)]


def _entry(phase: Phase, task: Task, index: int, priority: PriorityFn) -> dict[str, str]:
    status, prefix = STATUS_MAP[task.status]
    if task.status is Status.BLOCKED and task.reason:
        prefix = f"[blocked: {task.reason}] "
    chosen = priority(phase, task, index)
    if chosen not in PRIORITIES:
        raise InvalidOption(
            f"priority: must return one of high, medium, low, not {chosen!r} "
            f"(task {task.content!r} of phase {phase.name!r})"
        )
    return {"content": prefix + task.content, "priority": chosen, "status": status}


def plan_update(
    phases: Iterable[Phase | Mapping[str, Any]],
    *,
    plan_id: str | None = None,
    priority: PriorityFn | None = None,
) -> dict[str, Any]:
    """The ``update`` of a ``session/update`` notification showing ``phases``, as JSON data.

    ``phases`` are :class:`~phasetodo.Phase` values or ``details.phases`` dicts
    (loaded with :func:`~phasetodo.load_phases`, raising
    :class:`~phasetodo.InvalidPhases`). Without ``plan_id`` the result is the
    stable ``plan`` update; with it, a ``plan_update`` of ``type: "items"``
    for that plan. ``priority(phase, task, phase_index)`` returns ``"high"``,
    ``"medium"`` or ``"low"`` (default: by phase order). See the module for
    the status mapping.
    """
    if plan_id is not None and (not isinstance(plan_id, str) or not plan_id):
        raise InvalidOptionType(f"plan_id: must be a non-empty string, not {plan_id!r}")
    if priority is not None and not callable(priority):
        raise InvalidOptionType(f"priority: must be callable, not {priority!r}")
    rule = _by_phase_order if priority is None else priority
    entries = [
        _entry(phase, task, index, rule)
        for index, phase in enumerate(as_phases(phases))
        for task in phase.tasks
    ]
    if plan_id is None:
        return {"sessionUpdate": "plan", "entries": entries}
    return {"sessionUpdate": "plan_update", "plan": {"type": "items", "planId": plan_id, "entries": entries}}


def validate_update(update: Mapping[str, Any]) -> AgentPlanUpdate | AgentPlanContentUpdate:
    """``update`` as the SDK's model (``AgentPlanUpdate`` or ``AgentPlanContentUpdate``).

    Validates through ``acp.schema.SessionNotification``, the model a client
    reads a notification with, and raises :class:`~phasetodo.errors.InvalidOption`
    when the SDK would not take ``update`` whole (it drops invalid entries quietly).
    """
    schema = _sdk_schema()
    from pydantic import ValidationError

    try:
        notification = {"sessionId": "check", "update": dict(update)}
        model = schema.SessionNotification.model_validate(notification).update
    except ValidationError as error:
        raise InvalidOption(f"update: not a valid ACP session update: {error}") from error
    if not isinstance(model, (schema.AgentPlanUpdate, schema.AgentPlanContentUpdate)):
        raise InvalidOption(f"update: not an ACP plan update: {update.get('sessionUpdate')!r}")
    back = model.model_dump(mode="json", by_alias=True, exclude_none=True)
    if back != update:
        raise InvalidOption("update: the ACP SDK does not read it back whole (an entry was dropped)")
    return model  # type: ignore[no-any-return]


def supports_plan_update(capabilities: ClientCapabilities | Mapping[str, Any]) -> bool:
    """Whether a client takes the newer ``plan_update`` form: its ``initialize`` capabilities
    (the SDK's ``ClientCapabilities`` or their JSON) carry ``plan`` (ACP: omitted or ``null``
    means no; ``{}`` means it takes ``plan_update`` and ``plan_removed``)."""
    if isinstance(capabilities, Mapping):
        return capabilities.get("plan") is not None
    if not hasattr(capabilities, "plan"):
        raise InvalidOptionType(
            f"capabilities: must be the client's ClientCapabilities or their JSON, not {capabilities!r}"
        )
    return capabilities.plan is not None


class _Connection(Protocol):
    """What :func:`stream_plan` needs of a connection: ACP's ``AgentSideConnection`` has it."""

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None: ...


async def stream_plan(
    session: Session,
    connection: _Connection,
    acp_session_id: str,
    *,
    plan_id: str | None = None,
    priority: PriorityFn | None = None,
    initial: bool = True,
    timeout: float | None = None,
    sent: Callable[[int], object] | None = None,
    capabilities: ClientCapabilities | Mapping[str, Any] | None = None,
) -> int:
    """Send ``session``'s plan to an ACP client on every change; returns how many updates it sent.

    ``connection`` is the agent's side of the ACP connection (the SDK's
    ``AgentSideConnection``, or anything with its async ``session_update``);
    ``acp_session_id`` is the ACP session the plan belongs to. With
    ``initial`` the plan as it is now goes first. Then each new event in the
    session's log, whoever wrote it (other agents, people, auto-clear), is
    sent in version order as :func:`plan_update` renders it, with
    ``plan_id`` and ``priority``; an event that leaves the rendered plan as it
    was (a note, say) sends nothing. ``sent(version)`` is called once each
    event is handled, so a host can wait for the panel to catch up before it
    ends a turn. Runs until the session closes, ``timeout`` seconds pass
    without a change (``None``: never), or the task is cancelled.

    ``capabilities`` are the client's, as the agent's ``initialize`` got them.
    With ``plan_id``, a client whose capabilities lack ``plan`` gets nothing:
    :class:`~phasetodo.errors.InvalidOption` is raised before the first send
    (leave out ``plan_id`` to send the stable form, which every client takes).
    Without ``capabilities`` the form asked for is sent unchecked.
    """
    _sdk_schema()  # fail early, naming the extra
    if plan_id is not None and capabilities is not None and not supports_plan_update(capabilities):
        raise InvalidOption(
            "plan_id: the client did not advertise the 'plan' capability, so it does not take "
            "plan_update; leave out plan_id to send the stable plan form"
        )
    version = session.version
    count = 0
    last: dict[str, Any] | None = None
    if initial and version == 0:
        last = plan_update((), plan_id=plan_id, priority=priority)
        await connection.session_update(session_id=acp_session_id, update=validate_update(last))
        count += 1
        if sent is not None:
            sent(0)
    # With ``initial``, the newest event comes through the feed too, with its own list.
    after = version - 1 if initial and version > 0 else version
    async for event in session.awatch(timeout, after=after):
        update = plan_update(event.phases, plan_id=plan_id, priority=priority)
        if update != last:
            await connection.session_update(session_id=acp_session_id, update=validate_update(update))
            count += 1
            last = update
        if sent is not None:
            sent(event.version)
    return count
