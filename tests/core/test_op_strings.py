"""Op values hold plain strings, whatever string type they were built from (found by the mutation check)."""

from __future__ import annotations

from phasetodo._core.ops import Append, Done, Init, Note, PhaseItems, Start


class _Loud(str):
    """A str subclass with its own ``__str__``, ``__eq__`` and ``__hash__``, as a host may pass."""

    __slots__ = ()

    def __str__(self) -> str:
        return "LOUD"

    def __eq__(self, other: object) -> bool:
        return True

    def __hash__(self) -> int:
        return 0


class TestPlainStrings:
    def test_fields_are_plain_str(self) -> None:
        """A str subclass given as a field is stored as a plain str of the same characters."""
        for value in (Start(_Loud("a")).task, Done(_Loud("a"), _Loud("a")).phase, Note("t", _Loud("a")).text):
            assert type(value) is str
            assert value == "a"
            assert value != "b"

    def test_items_are_plain_str(self) -> None:
        """Items given as str subclasses, alone or among plain strings, are stored as plain strs."""
        given: tuple[list[str], ...] = ([_Loud("a"), _Loud("b")], ["a", _Loud("b")])
        for items in given:
            stored = Append("P", items).items
            assert stored == ("a", "b")
            assert [type(item) for item in stored or ()] == [str, str]
        entry = PhaseItems(_Loud("P"), [_Loud("a")])
        assert (type(entry.phase), type(entry.items[0])) == (str, str)
        assert Init([entry]).list == (PhaseItems("P", ("a",)),)

    def test_plain_values_are_kept(self) -> None:
        """Plain strings and missing fields are kept as given."""
        items = ("a", "b")
        assert Append("P", items).items is items
        assert Start().task is None
        assert Append("P").items is None
