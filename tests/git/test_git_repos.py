"""Plans in real git repositories: ``phasetodo git init``, merges through the driver (clean and
conflicting), a rebase, a cherry-pick, compacted logs, worktrees and ``--at REF``."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs
import pytest

from phasetodo import JsonlStore, Phase, Session, Task
from phasetodo.errors import GitPlanError
from phasetodo.gitplan import CONFLICT_SOURCE, driver_command, init_repo, phases_at, read_log

pytestmark = pytest.mark.slow

GIT = "/usr/bin/git"


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A new git repository set up by ``phasetodo git init``, with no global or system config."""
    if not Path(GIT).exists():
        pytest.skip("needs git at /usr/bin/git")
    home = tmp_path / "home"
    home.mkdir()
    for name, value in {
        "HOME": str(home),
        "GIT_CONFIG_GLOBAL": "/dev/null",
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "Test",
        "GIT_AUTHOR_EMAIL": "test@example.com",
        "GIT_COMMITTER_NAME": "Test",
        "GIT_COMMITTER_EMAIL": "test@example.com",
        "GIT_EDITOR": "true",
    }.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("PHASETODO_HOME", raising=False)
    path = tmp_path / "repo"
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    assert cli(path, "git", "init").returncode == 0
    return path


def git(where: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([GIT, "-C", str(where), *args], capture_output=True, text=True, check=False)
    if check and done.returncode != 0:
        raise AssertionError(f"git {' '.join(args)}: {done.stdout}{done.stderr}")
    return done


def cli(where: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "phasetodo.cli", *args], cwd=where, capture_output=True, text=True, check=False
    )


_clock = iter(range(1_000, 10**6))


def write(where: Path, agent: str | None, *ops: dict[str, Any]) -> None:
    """One team write into the repository's plan (session ``default``), at the next clock tick."""
    now = float(next(_clock))
    store = JsonlStore(where / ".phasetodo")
    with Session.open("default", store=store, profile="team", agent=agent, clock=lambda: now) as session:
        session.todo_write({"ops": list(ops)})


def append(item: str) -> dict[str, Any]:
    return {"op": "append", "phase": "Build", "items": [item]}


def plan(where: Path) -> dict[str, Any]:
    """Each task of the plan in ``where`` by its content."""
    with Session.open("default", store=JsonlStore(where / ".phasetodo"), profile="team") as session:
        return {t.content: t for p in session.phases for t in p.tasks}


def start(repo: Path) -> None:
    write(repo, "lead", {"op": "init", "list": [{"phase": "Build", "items": ["Parser", "Lexer", "Docs"]}]})
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "plan")


def commit(where: Path, message: str) -> None:
    git(where, "commit", "-qam", message)


def verified(where: Path) -> bool:
    return JsonlStore(where / ".phasetodo").verify("default").ok


class TestInit:
    def test_sets_the_repository_up(self, repo: Path) -> None:
        """git init makes the store and its .gitignore, the attributes line and the driver's config."""
        assert (repo / ".phasetodo" / ".gitignore").exists()
        assert ".phasetodo/*.jsonl merge=phasetodo" in (repo / ".gitattributes").read_text().splitlines()
        driver = git(repo, "config", "merge.phasetodo.driver").stdout.strip()
        assert driver.startswith(sys.executable)
        assert driver.endswith(" -P -m phasetodo.cli git merge-driver %O %A %B %P")
        attr = git(repo, "check-attr", "merge", ".phasetodo/default.jsonl").stdout
        assert attr.strip().endswith("phasetodo")

    def test_idempotent(self, repo: Path) -> None:
        """A second git init changes nothing and says so."""
        before = (repo / ".gitattributes").read_text()
        again = init_repo(repo)
        assert (again.made_store, again.added_attributes, again.set_driver) == (False, False, False)
        assert (repo / ".gitattributes").read_text() == before

    def test_the_heartbeats_file_is_ignored_in_an_older_store_too(self, repo: Path) -> None:
        """A store whose .gitignore predates heartbeats beside the log gains the ``*.beat``
        line once (its own lines kept), and git then leaves a beats file out."""
        ignore = repo / ".phasetodo" / ".gitignore"
        older = "# made by the phasetodo store, never committed\n*.torn\n*.compact"
        ignore.write_text(older, encoding="utf-8")
        init_repo(repo)
        init_repo(repo)
        assert ignore.read_text(encoding="utf-8").splitlines() == [
            "# made by the phasetodo store, never committed", "*.torn", "*.compact", "*.beat"
        ]
        probe = git(repo, "check-ignore", "-q", "--no-index", ".phasetodo/default.jsonl.beat", check=False)
        assert probe.returncode == 0

    def test_outside_a_repository(self, tmp_path: Path, repo: Path) -> None:
        """Outside a git repository the command says so and exits 2."""
        alone = tmp_path / "alone"
        alone.mkdir()
        done = cli(alone, "git", "init")
        assert done.returncode == 2
        assert "not in a git repository" in done.stderr


class TestMerge:
    def test_without_conflict(self, repo: Path) -> None:
        """Both branches' changes are in the merged plan, ids unique, the log verifies."""
        start(repo)
        git(repo, "checkout", "-qb", "feature")
        write(repo, "alice", {"op": "start", "task": "Parser"}, append("Tests"))
        commit(repo, "feature")
        git(repo, "checkout", "-q", "main")
        write(repo, "bob", {"op": "note", "task": "Docs", "text": "API first"})
        write(repo, "bob", {"op": "append", "phase": "Build", "items": ["Bench"]})
        commit(repo, "main")
        git(repo, "merge", "-q", "--no-edit", "feature")
        tasks = plan(repo)
        assert tasks["Parser"].owner == "alice"
        assert tasks["Docs"].notes == ("API first",)
        assert {"Tests", "Bench"} <= set(tasks)
        ids = [t.id for t in tasks.values()]
        assert len(ids) == len(set(ids))
        assert verified(repo)
        assert cli(repo, "verify").returncode == 0

    def test_conflict_is_recorded(self, repo: Path) -> None:
        """Both branches closed the same task differently and renamed another: the merge succeeds
        and records the conflicts, which history shows."""
        start(repo)
        git(repo, "checkout", "-qb", "feature")
        write(repo, "alice", {"op": "done", "task": "Lexer"})
        rename(repo, "Docs", "Write the docs")
        commit(repo, "feature")
        git(repo, "checkout", "-q", "main")
        write(repo, "bob", {"op": "drop", "task": "Lexer"})
        rename(repo, "Docs", "Docs site")
        commit(repo, "main")
        done = git(repo, "merge", "--no-edit", "feature")
        assert "merged; " in done.stderr
        assert git(repo, "status", "--porcelain").stdout == ""
        tasks = plan(repo)
        assert "Docs site" in tasks  # main's rename came later
        assert any("content Write the docs on one branch" in n for n in tasks["Docs site"].notes)
        assert tasks["Lexer"].status.value == "abandoned"
        events = read_log(repo / ".phasetodo" / "default.jsonl")
        assert CONFLICT_SOURCE in [e.source for e in events]
        history = cli(repo, "history")
        assert "user_edit (merge-conflict)" in history.stdout
        assert "merge conflict: status completed on one branch, abandoned on the other" in history.stdout
        assert verified(repo)

    def test_history_names_each_conflicts_task(self, repo: Path) -> None:
        """history's line and its JSON name the task and phase each merge conflict is about."""
        start(repo)
        git(repo, "checkout", "-qb", "feature")
        write(repo, "alice", {"op": "done", "task": "Lexer"})
        commit(repo, "feature")
        git(repo, "checkout", "-q", "main")
        write(repo, "bob", {"op": "drop", "task": "Lexer"})
        commit(repo, "main")
        done = git(repo, "merge", "--no-edit", "feature")
        assert '  "Lexer" (t2) in Build: merge conflict: status ' in done.stderr
        line = next(x for x in cli(repo, "history").stdout.splitlines() if "merge conflict:" in x)
        assert line.strip().startswith('"Lexer" (t2) in Build: merge conflict: status ')
        rows = json.loads(cli(repo, "history", "--json").stdout)
        noted = [c for row in rows for c in row.get("conflicts", ())]
        assert [(c["phase"], c["task"], c["id"]) for c in noted] == [("Build", "Lexer", "t2")] * 2
        assert [c["text"].split(" on one")[0] for c in noted] == [
            "merge conflict: status completed",
            "merge conflict: owner alice",
        ]

    def test_the_guides_example(self, repo: Path) -> None:
        """docs/git.md's conflict example, made with the command: the task completed on feature
        and dropped later on main; git merge and history print what the guide shows (times,
        and the versions the guide elides before, aside)."""
        tasks = ["Parser", "Lexer", "Docs", "Ship"]
        write(repo, "lead", {"op": "init", "list": [{"phase": "Build", "items": tasks}]})
        git(repo, "add", "-A")
        git(repo, "commit", "-qm", "plan")
        git(repo, "checkout", "-qb", "feature")
        assert cli(repo, "done", "Lexer").returncode == 0
        commit(repo, "feature")
        git(repo, "checkout", "-q", "main")
        assert cli(repo, "drop", "Lexer").returncode == 0
        commit(repo, "main")
        text = (Path(__file__).parents[2] / "docs" / "git.md").read_text(encoding="utf-8")
        (block,) = re.findall(r"```console\n(.*?)```", text, re.DOTALL)
        (merge, merged), (history, shown) = [
            chunk.partition("\n")[::2] for chunk in re.split(r"^\$ ", block, flags=re.MULTILINE)[1:]
        ]
        assert (merge, history) == ("git merge feature", "phasetodo history")

        def same(text: str) -> list[str]:
            timeless = re.sub(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00", "TIME", text)
            return [re.sub(r"^ +\d+  ", "   N  ", line) for line in timeless.splitlines()]

        done = git(repo, *merge.split()[1:])
        assert "Merge made by the 'ort' strategy." in done.stdout
        assert same(done.stderr) == same(merged.replace("Merge made by the 'ort' strategy.\n", ""))
        lines = same(shown)
        assert lines[0] == "   …"
        assert same(cli(repo, "history").stdout)[-len(lines) + 1 :] == lines[1:]

    def test_same_direction_either_way(self, repo: Path) -> None:
        """Merging feature into main and main into feature give the same plan."""
        start(repo)
        git(repo, "checkout", "-qb", "feature")
        write(repo, "alice", {"op": "done", "task": "Lexer"}, append("A"))
        commit(repo, "feature")
        git(repo, "checkout", "-q", "main")
        write(repo, "bob", {"op": "drop", "task": "Lexer"}, append("B"))
        commit(repo, "main")
        git(repo, "branch", "main2")
        git(repo, "merge", "-q", "--no-edit", "feature")
        one = (repo / ".phasetodo" / "default.jsonl").read_bytes()
        git(repo, "checkout", "-q", "feature")
        git(repo, "merge", "-q", "--no-edit", "main2")
        assert (repo / ".phasetodo" / "default.jsonl").read_bytes() == one

    def test_after_both_compacted(self, repo: Path) -> None:
        """Both sides ran compact(): the shared history is still found and both changes merge."""
        start(repo)
        git(repo, "checkout", "-qb", "feature")
        write(repo, "alice", {"op": "start", "task": "Parser"})
        compact(repo)
        commit(repo, "feature")
        git(repo, "checkout", "-q", "main")
        write(repo, "bob", {"op": "note", "task": "Lexer", "text": "tabs"})
        compact(repo)
        commit(repo, "main")
        git(repo, "merge", "-q", "--no-edit", "feature")
        tasks = plan(repo)
        assert tasks["Parser"].owner == "alice"
        assert tasks["Lexer"].notes == ("tabs",)
        assert len(read_log(repo / ".phasetodo" / "default.jsonl")) == 3
        assert verified(repo)

    def test_not_a_log_fails_the_merge(self, repo: Path) -> None:
        """A .phasetodo/*.jsonl that is no session log makes the driver fail: git reports a conflict."""
        (repo / ".phasetodo" / "notes.jsonl").write_text('{"a": 1}\n')
        git(repo, "add", "-A")
        git(repo, "commit", "-qm", "notes")
        git(repo, "checkout", "-qb", "feature")
        (repo / ".phasetodo" / "notes.jsonl").write_text('{"a": 2}\n')
        commit(repo, "feature")
        git(repo, "checkout", "-q", "main")
        (repo / ".phasetodo" / "notes.jsonl").write_text('{"a": 3}\n')
        commit(repo, "main")
        done = git(repo, "merge", "--no-edit", "feature", check=False)
        assert done.returncode != 0
        assert "not a phasetodo session log" in done.stderr + done.stdout


def start_two(repo: Path) -> None:
    """The plan Build (Parser, Lexer, Docs), Ship (Tag, Post), committed on main."""
    build = {"phase": "Build", "items": ["Parser", "Lexer", "Docs"]}
    write(repo, "lead", {"op": "init", "list": [build, {"phase": "Ship", "items": ["Tag", "Post"]}]})
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "plan")


def diverge(repo: Path, on_feature: Callable[[], object], on_main: Callable[[], object]) -> None:
    """:func:`start_two`, then one change committed on a new branch feature and one on main."""
    start_two(repo)
    git(repo, "checkout", "-qb", "feature")
    on_feature()
    commit(repo, "feature")
    git(repo, "checkout", "-q", "main")
    on_main()
    commit(repo, "main")


def person(where: Path, change: Callable[[tuple[Phase, ...]], tuple[Phase, ...]]) -> None:
    """A person's edit of the plan (a ``user_edit``, as ``phasetodo edit`` records it), at the next tick."""
    now = float(next(_clock))
    store = JsonlStore(where / ".phasetodo")
    with Session.open("default", store=store, profile="team", clock=lambda: now) as session:
        session.user_edit(change(session.phases), source="cli")


def shape(where: Path) -> list[tuple[str, list[str]]]:
    """Each phase of the plan in ``where`` with its tasks' contents, in order."""
    with Session.open("default", store=JsonlStore(where / ".phasetodo"), profile="team") as session:
        return [(p.name, [t.content for t in p.tasks]) for p in session.phases]


def merged_both_ways(repo: Path) -> list[tuple[str, list[str]]]:
    """Merge feature into main and main into feature: the same log either way, it verifies;
    the merged plan's shape."""
    git(repo, "checkout", "-q", "main")
    git(repo, "branch", "-f", "main2")
    git(repo, "merge", "-q", "--no-edit", "feature")
    one = (repo / ".phasetodo" / "default.jsonl").read_bytes()
    assert verified(repo)
    assert cli(repo, "verify").returncode == 0
    result = shape(repo)
    git(repo, "checkout", "-q", "feature")
    git(repo, "merge", "-q", "--no-edit", "main2")
    assert (repo / ".phasetodo" / "default.jsonl").read_bytes() == one
    git(repo, "checkout", "-q", "main")
    return result


def reordered(phase: str, *order: str) -> Callable[[tuple[Phase, ...]], tuple[Phase, ...]]:
    return lambda phases: tuple(
        attrs.evolve(p, tasks=sorted(p.tasks, key=lambda t: order.index(t.content))) if p.name == phase else p
        for p in phases
    )


def renamed_phase(old: str, new: str) -> Callable[[tuple[Phase, ...]], tuple[Phase, ...]]:
    return lambda phases: tuple(attrs.evolve(p, name=new) if p.name == old else p for p in phases)


def moved(task: str, phase: str) -> Callable[[tuple[Phase, ...]], tuple[Phase, ...]]:
    def change(phases: tuple[Phase, ...]) -> tuple[Phase, ...]:
        found = tuple(t for p in phases for t in p.tasks if t.content == task)
        return tuple(
            attrs.evolve(
                p, tasks=tuple(t for t in p.tasks if t.content != task) + (found if p.name == phase else ())
            )
            for p in phases
        )

    return change


def conflicts(repo: Path) -> list[str]:
    """The notes the merge-conflict events of the plan's log left."""
    history = cli(repo, "history").stdout
    return [line.partition(": ")[2] for line in history.splitlines() if ": merge conflict:" in line]


class TestOrderAndPhases:
    def test_reorder_beside_an_append(self, repo: Path) -> None:
        """A pure reorder on feature and an append on main both survive, either way."""
        diverge(
            repo,
            lambda: person(repo, reordered("Build", "Docs", "Parser", "Lexer")),
            lambda: write(repo, "bob", append("Bench")),
        )
        assert merged_both_ways(repo)[0] == ("Build", ["Docs", "Parser", "Lexer", "Bench"])
        assert conflicts(repo) == []

    def test_move_between_phases_beside_a_note(self, repo: Path) -> None:
        """A task moved to another phase on main keeps the note feature added, either way."""
        diverge(
            repo,
            lambda: write(repo, "alice", {"op": "note", "task": "Docs", "text": "API first"}),
            lambda: person(repo, moved("Docs", "Ship")),
        )
        assert merged_both_ways(repo) == [("Build", ["Parser", "Lexer"]), ("Ship", ["Tag", "Post", "Docs"])]
        assert plan(repo)["Docs"].notes == ("API first",)

    def test_phase_order_beside_a_change(self, repo: Path) -> None:
        """Phases reordered on feature stay reordered when main completed a task, either way."""
        diverge(
            repo,
            lambda: person(repo, lambda phases: (phases[1], phases[0])),
            lambda: write(repo, None, {"op": "done", "task": "Tag"}),
        )
        assert [name for name, _ in merged_both_ways(repo)] == ["Ship", "Build"]
        assert plan(repo)["Tag"].status.value == "completed"

    def test_two_reorders_conflict(self, repo: Path) -> None:
        """Both branches moved one task to different places: the later place wins and is recorded."""
        diverge(
            repo,
            lambda: person(repo, reordered("Build", "Docs", "Parser", "Lexer")),
            lambda: person(repo, reordered("Build", "Parser", "Docs", "Lexer")),
        )
        assert merged_both_ways(repo)[0] == ("Build", ["Parser", "Docs", "Lexer"])
        assert [n.split(";")[0] for n in conflicts(repo)] == [
            "merge conflict: order of Build [Docs, Parser, Lexer] on one branch, "
            "[Parser, Docs, Lexer] on the other"
        ]

    def test_different_moves_in_one_phase(self, repo: Path) -> None:
        """Feature moved Docs first, main moved Parser last: both moves stay, either way."""
        diverge(
            repo,
            lambda: person(repo, reordered("Build", "Docs", "Parser", "Lexer")),
            lambda: person(repo, reordered("Build", "Lexer", "Docs", "Parser")),
        )
        assert merged_both_ways(repo)[0] == ("Build", ["Docs", "Lexer", "Parser"])
        assert conflicts(repo) == []

    def test_rename_beside_task_changes_in_the_phase(self, repo: Path) -> None:
        """Feature renamed a phase, main completed a task in it and added one: the renamed phase
        holds both, either way, no conflict."""
        diverge(
            repo,
            lambda: person(repo, renamed_phase("Build", "Implement")),
            lambda: write(repo, "bob", {"op": "done", "task": "Lexer"}, append("Bench")),
        )
        assert merged_both_ways(repo) == [
            ("Implement", ["Parser", "Lexer", "Docs", "Bench"]),
            ("Ship", ["Tag", "Post"]),
        ]
        assert plan(repo)["Lexer"].status.value == "completed"
        assert conflicts(repo) == []

    def test_two_renames_conflict(self, repo: Path) -> None:
        """Both branches renamed one phase differently: the later name wins and is recorded."""
        diverge(
            repo,
            lambda: person(repo, renamed_phase("Build", "Make")),
            lambda: person(repo, renamed_phase("Build", "Code")),
        )
        assert [name for name, _ in merged_both_ways(repo)] == ["Code", "Ship"]
        assert [n.split(";")[0] for n in conflicts(repo)] == [
            "merge conflict: phase name Make on one branch, Code on the other"
        ]


class TestHistoryRewriting:
    def test_rebase(self, repo: Path) -> None:
        """A branch rebased onto main carries its plan changes over main's."""
        start(repo)
        git(repo, "checkout", "-qb", "feature")
        write(repo, "alice", {"op": "start", "task": "Parser"})
        commit(repo, "f1")
        write(repo, "alice", {"op": "done", "task": "Parser"})
        commit(repo, "f2")
        git(repo, "checkout", "-q", "main")
        write(repo, "bob", {"op": "append", "phase": "Build", "items": ["Bench"]})
        commit(repo, "m1")
        git(repo, "checkout", "-q", "feature")
        git(repo, "rebase", "-q", "main")
        tasks = plan(repo)
        assert tasks["Parser"].status.value == "completed"
        assert "Bench" in tasks
        assert verified(repo)

    def test_cherry_pick(self, repo: Path) -> None:
        """A commit's plan change picked onto another branch lands there beside that branch's own."""
        start(repo)
        git(repo, "checkout", "-qb", "feature")
        write(repo, "alice", {"op": "note", "task": "Docs", "text": "picked"})
        commit(repo, "f1")
        picked = git(repo, "rev-parse", "HEAD").stdout.strip()
        git(repo, "checkout", "-q", "main")
        write(repo, "bob", {"op": "drop", "task": "Lexer"})
        commit(repo, "m1")
        git(repo, "cherry-pick", picked)
        tasks = plan(repo)
        assert tasks["Docs"].notes == ("picked",)
        assert tasks["Lexer"].status.value == "abandoned"
        assert verified(repo)


class TestWorktrees:
    def test_change_in_a_worktree_and_merge_back(self, repo: Path, tmp_path: Path) -> None:
        """A worktree's own plan changes merge back into main with main's."""
        start(repo)
        other = tmp_path / "wt"
        git(repo, "worktree", "add", "-q", "-b", "side", str(other))
        write(other, "carol", {"op": "start", "task": "Docs"})
        commit(other, "side")
        write(repo, "bob", {"op": "append", "phase": "Build", "items": ["Bench"]})
        commit(repo, "main")
        git(repo, "merge", "-q", "--no-edit", "side")
        tasks = plan(repo)
        assert tasks["Docs"].owner == "carol"
        assert "Bench" in tasks
        assert verified(repo)


class TestAt:
    def test_show_at_a_ref(self, repo: Path) -> None:
        """--at REF show prints the plan as committed there; phases_at is the library call."""
        start(repo)
        write(repo, "alice", {"op": "done", "task": "Parser"})
        commit(repo, "done")
        done = cli(repo, "--at", "HEAD~1", "--json", "show")
        assert done.returncode == 0, done.stderr
        statuses = {t["content"]: t["status"] for p in json.loads(done.stdout) for t in p["tasks"]}
        assert statuses["Parser"] == "pending"
        now = {t.content: t.status.value for p in phases_at("HEAD", repo=repo) for t in p.tasks}
        assert now["Parser"] == "completed"
        assert cli(repo, "--at", "HEAD~1", "history").stdout.count("\n") == 1

    def test_other_verbs_refuse_it(self, repo: Path) -> None:
        """A verb that changes the plan refuses --at, changing nothing."""
        start(repo)
        before = (repo / ".phasetodo" / "default.jsonl").read_bytes()
        done = cli(repo, "--at", "HEAD", "done", "Parser")
        assert done.returncode == 2
        assert "--at: only show, export, history" in done.stderr
        assert (repo / ".phasetodo" / "default.jsonl").read_bytes() == before

    def test_unknown_ref(self, repo: Path) -> None:
        """A ref the repository does not have exits 1 saying so (not blaming a missing file)."""
        start(repo)
        done = cli(repo, "--at", "nope", "show")
        assert done.returncode == 1
        assert "--at nope: no branch, tag or commit of that name" in done.stderr

    def test_a_ref_without_the_log(self, repo: Path) -> None:
        """A ref that exists but has no plan exits 1 naming the file at that ref."""
        git(repo, "commit", "-q", "--allow-empty", "-m", "empty")
        done = cli(repo, "--at", "HEAD", "show")
        assert done.returncode == 1
        assert ".phasetodo/default.jsonl at HEAD" in done.stderr

    @pytest.mark.parametrize("ref", ["--output={out}", "-o{out}", "--output={out}^{{commit}}"])
    def test_a_ref_is_never_an_option(self, repo: Path, tmp_path: Path, ref: str) -> None:
        """--at=--output=FILE is refused before git sees it: no file is written, exit 1, no plan printed."""
        start(repo)
        out = tmp_path / "written"
        done = cli(repo, f"--at={ref.format(out=out)}", "show")
        assert done.returncode == 1
        assert done.stdout == ""
        assert "not a ref" in done.stderr
        assert not out.exists()


def rename(where: Path, old: str, new: str) -> None:
    """A person renames a task (a user edit keeping its id), at the next clock tick."""
    now = float(next(_clock))
    store = JsonlStore(where / ".phasetodo")
    with Session.open("default", store=store, profile="team", clock=lambda: now) as session:
        phases = tuple(
            Phase(p.name, tuple(t if t.content != old else _renamed(t, new) for t in p.tasks), p.last_id)
            for p in session.phases
        )
        session.user_edit(phases, source="cli")


def _renamed(task: Task, new: str) -> Task:
    return attrs.evolve(task, content=new)


def compact(where: Path) -> None:
    with Session.open("default", store=JsonlStore(where / ".phasetodo"), profile="team") as session:
        session.compact()


def test_git_init_warns_when_the_ignore_rules_leave_the_store_out(tmp_path: Path, repo: Path) -> None:
    """A .gitignore that ignores dot folders would keep the plan out of every commit: init says so."""
    assert "warning" not in cli(repo, "git", "init").stdout
    (repo / ".gitignore").write_text(".*\n!.gitignore\n!.gitattributes\n", encoding="utf-8")
    done = cli(repo, "git", "init")
    assert done.returncode == 0
    assert "warning: the repository's ignore rules leave .phasetodo/ out" in done.stdout
    assert init_repo(repo).ignored
    (repo / ".gitignore").write_text(".*\n!.gitignore\n!.gitattributes\n!.phasetodo/\n", encoding="utf-8")
    assert not init_repo(repo).ignored


class TestForeignFiles:
    def test_the_driver_never_imports_the_repositorys_code(self, repo: Path) -> None:
        """A phasetodo.py that a branch landed at the top is not run by a later merge, which still merges."""
        start(repo)
        (repo / "phasetodo.py").write_text(
            "import pathlib\npathlib.Path(__file__).with_name('ran').write_text('yes')\n", encoding="utf-8"
        )
        git(repo, "add", "phasetodo.py")
        commit(repo, "a module named like ours")
        git(repo, "checkout", "-qb", "feature")
        write(repo, "alice", {"op": "start", "task": "Parser"})
        commit(repo, "feature")
        git(repo, "checkout", "-q", "main")
        write(repo, "bob", {"op": "note", "task": "Docs", "text": "API first"})
        commit(repo, "main")
        git(repo, "merge", "-q", "--no-edit", "feature")
        assert not (repo / "ran").exists()
        tasks = plan(repo)
        assert (tasks["Parser"].owner, tasks["Docs"].notes) == ("alice", ("API first",))

    def test_init_rewrites_an_old_driver_line(self, repo: Path) -> None:
        """A repository set up with the old driver line (no -P) gets the safe one from git init."""
        old = driver_command().replace(" -P -m ", " -m ")
        git(repo, "config", "merge.phasetodo.driver", old)
        assert init_repo(repo).set_driver is True
        assert git(repo, "config", "merge.phasetodo.driver").stdout.strip() == driver_command()

    @pytest.mark.parametrize("planted", [".gitattributes", ".phasetodo", ".phasetodo/.gitignore"])
    def test_init_refuses_a_planted_link(self, tmp_path: Path, planted: str) -> None:
        """git init exits 2 naming a symlinked .gitattributes, .phasetodo or .gitignore; nothing moves."""
        fresh = tmp_path / "fresh"
        fresh.mkdir()
        git(fresh, "init", "-q", "-b", "main")
        outside = tmp_path / "outside"
        outside.mkdir()
        (outside / "config").write_text("[user]\n\tname = me\n", encoding="utf-8")
        if planted == ".phasetodo/.gitignore":
            (fresh / ".phasetodo").mkdir()
        target = outside if planted == ".phasetodo" else outside / "config"
        (fresh / planted).symlink_to(target)
        before = sorted((p.name, p.read_bytes()) for p in outside.iterdir())
        done = cli(fresh, "git", "init")
        assert done.returncode == 2
        assert f"{planted} is a symbolic link" in done.stderr
        assert sorted((p.name, p.read_bytes()) for p in outside.iterdir()) == before
        with pytest.raises(GitPlanError, match="symbolic link"):
            init_repo(fresh)


def notes_on(where: Path, branch: str, *texts: str) -> None:
    """Check out a new ``branch`` and commit there one note on Parser per text, each its own event."""
    git(where, "checkout", "-qb", branch)
    for text in texts:
        write(where, "lead", {"op": "note", "task": "Parser", "text": text})
    commit(where, branch)


class TestLiveSessionAcrossCheckout:
    """A long-lived session (the MCP server, a lead's handle, a watcher) while git swaps the log."""

    @pytest.mark.parametrize("other", [("a", "b"), ("a",)], ids=["same-length", "shorter"])
    def test_a_checkout_is_adopted_and_written_on(self, repo: Path, other: tuple[str, ...]) -> None:
        """After checking out a branch whose log has as many events (or fewer), the live session reads
        that branch's plan, and its next write builds on it: nothing of the branch is lost, no conflict."""
        start(repo)
        notes_on(repo, "left", "L1", "L2")
        git(repo, "checkout", "-q", "main")
        notes_on(repo, "right", *("R" + n for n in other))
        git(repo, "checkout", "-q", "left")
        store = JsonlStore(repo / ".phasetodo")
        with Session.open("default", store=store, profile="team", agent="lead") as live:
            assert live.phases[0].tasks[0].notes == ("L1", "L2")
            git(repo, "checkout", "-q", "right")
            right = tuple("R" + n for n in other)
            assert live.phases[0].tasks[0].notes == right
            live.todo_write({"ops": [{"op": "note", "task": "Parser", "text": "after"}]})
        assert plan(repo)["Parser"].notes == (*right, "after")
        assert verified(repo)

    def test_a_watcher_is_given_the_new_plan(self, repo: Path) -> None:
        """watch() yields the checked-out branch's newest event (its whole list), then follows it."""
        start(repo)
        notes_on(repo, "left", "L1", "L2")
        git(repo, "checkout", "-q", "main")
        notes_on(repo, "right", "R1")
        git(repo, "checkout", "-q", "left")
        store = JsonlStore(repo / ".phasetodo")
        with Session.open("default", store=store, profile="team", agent="lead") as live:
            watching = live.watch(timeout=2.0, after=live.version)
            write(repo, "lead", {"op": "note", "task": "Parser", "text": "L3"})
            assert next(watching).phases[0].tasks[0].notes == ("L1", "L2", "L3")
            git(repo, "checkout", "-q", "-f", "right")
            first = next(watching)
            assert first.phases[0].tasks[0].notes == ("R1",)
            write(repo, "lead", {"op": "note", "task": "Parser", "text": "R2"})
            second = next(watching)
            assert (second.version, second.phases[0].tasks[0].notes) == (first.version + 1, ("R1", "R2"))


class TestMergedWithoutTheDriver:
    def test_conflict_markers_say_how_to_recover(self, tmp_path: Path, repo: Path) -> None:
        """A plan merged as text (no git init in this clone) names git's markers and the way out,
        in show and in verify, instead of a JSON parser's error."""
        bare = tmp_path / "bare"
        bare.mkdir()
        git(bare, "init", "-q", "-b", "main")
        assert cli(bare, "append", "Build", "a", "b").returncode == 0
        git(bare, "add", "-A")
        git(bare, "commit", "-qm", "plan")
        git(bare, "checkout", "-qb", "feature")
        assert cli(bare, "done", "a").returncode == 0
        commit(bare, "done on feature")
        git(bare, "checkout", "-q", "main")
        assert cli(bare, "drop", "b").returncode == 0
        commit(bare, "drop on main")
        assert git(bare, "merge", "-q", "feature", check=False).returncode != 0
        for verb in ("show", "verify"):
            done = cli(bare, verb)
            assert done.returncode != 0
            said = done.stderr + done.stdout
            assert "git's conflict markers" in said
            assert "git merge --abort" in said
            assert "phasetodo git init" in said
            assert "Expecting value" not in said
