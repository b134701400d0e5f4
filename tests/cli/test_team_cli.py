"""The command on a team plan: the ready verb, --agent, and a person's edits by the team rules."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .test_cli import Cli

PLAN = json.dumps(
    {
        "ops": [
            {
                "op": "init",
                "list": [
                    {"phase": "Build", "items": ["Parser", {"content": "Tests", "after": ["Parser"]}, "Docs"]}
                ],
            }
        ]
    }
)


@pytest.fixture
def team(tmp_path: Path) -> Cli:
    cli = Cli(tmp_path, "sqlite:plans.db")
    cli.ok("apply", "--profile", "team", "--agent", "lead", PLAN)
    return cli


class TestReady:
    def test_lists_ready_and_waiting(self, team: Cli) -> None:
        """ready names the ready tasks and what waits for what."""
        out = team.ok("ready")
        assert out.splitlines() == [
            'Ready (2): t1 "Parser" (Build), t3 "Docs" (Build)',
            "Waiting (1):",
            '  t2 "Tests" (Build) after "Parser"',
        ]

    def test_json(self, team: Cli) -> None:
        """ready --json gives the ready tasks with their phases."""
        assert json.loads(team.ok("ready", "--json")) == [
            {"phase": "Build", "task": "Parser", "id": "t1"},
            {"phase": "Build", "task": "Docs", "id": "t3"},
        ]


class TestAgent:
    def test_start_claims_as_the_agent(self, team: Cli) -> None:
        """start --agent with no target claims the next ready task for that agent."""
        out = team.ok("start", "--agent", "w1")
        assert out.startswith('You (w1) are on t1 "Parser" (Build).')
        taken = team.run("start", "--agent", "w2", "Parser")
        assert taken.returncode == 1
        assert 'Task "Parser" is in progress for agent "w1"' in taken.stdout
        assert team.ok("ready", "--agent", "w1").startswith('You (w1) are on t1 "Parser" (Build).')

    def test_person_edits_follow_the_team_rules(self, team: Cli) -> None:
        """A person's done on a team plan claims nothing; a person's start is refused."""
        team.ok("done", "Parser")
        statuses = {t["content"]: t["status"] for t in team.phases()[0]["tasks"]}
        assert statuses == {"Parser": "completed", "Tests": "pending", "Docs": "pending"}
        refused = team.run("start", "Docs")
        assert refused.returncode == 1
        assert "a person does not claim tasks" in refused.stderr

    def test_refusal_names_the_verb_once(self, team: Cli) -> None:
        """The engine's own "start: ..." error is not prefixed with the verb a second time."""
        refused = team.run("start", "Docs")
        assert refused.stderr == (
            "phasetodo: start: a person does not claim tasks; an agent starts its own; nothing changed\n"
        )


class TestMarkdown:
    def test_export_and_import_keep_team_fields(self, team: Cli, tmp_path: Path) -> None:
        """export writes a team plan losslessly, and importing it back changes nothing."""
        team.ok("start", "--agent", "w1")
        before = team.phases()
        team.ok("export", "plan.md")
        text = (tmp_path / "plan.md").read_text(encoding="utf-8")
        assert "  @owner w1\n" in text
        assert "  @after Parser\n" in text
        assert "  @id t1\n" in text
        team.ok("import", "plan.md")
        assert team.phases() == before


class TestBeads:
    def test_export_and_import_round_trip_through_the_command(self, team: Cli) -> None:
        """export --format beads writes beads JSONL; import --format beads reads it into another plan."""
        text = team.ok("export", "--format", "beads")
        issues = [json.loads(line) for line in text.splitlines()]
        assert [(i["id"], i["title"]) for i in issues] == [
            ("pt-e1", "Build"), ("t1", "Parser"), ("t2", "Tests"), ("t3", "Docs")
        ]
        assert {"issue_id": "t2", "depends_on_id": "t1", "type": "blocks"} in issues[2]["dependencies"]
        team.ok("--session", "copy", "import", "--format", "beads", "-", stdin=text)
        assert team.ok("--session", "copy", "export", "--format", "beads") == text

    def test_a_real_bd_export_goes_through_and_back_unchanged(self, team: Cli, tmp_path: Path) -> None:
        """A file shaped like ``bd export`` (header, memory, epics, comments, timestamps) imports
        with its non-issue lines named on stderr, and exports back to the same issues."""
        source = Path(__file__).parents[1] / "integrations" / "bd_export.jsonl"
        done = team.run("--session", "bd", "import", "--format", "beads", str(source))
        assert done.returncode == 0, done.stderr
        assert "line 1: the export's header ('beads-jsonl/1'): not imported" in done.stderr
        assert "line 9: a beads 'memory' record, not an issue: not imported" in done.stderr
        assert "not kept" not in done.stderr  # every field of every issue and epic is kept
        exported = team.ok("--session", "bd", "export", "--format", "beads")
        back = [json.loads(line) for line in exported.splitlines()]
        issues = [json.loads(line) for line in source.read_text(encoding="utf-8").splitlines()]
        assert back == [i for i in issues if i.get("_type") == "issue"]

    def test_a_file_that_is_not_beads_exits_2_naming_the_line(self, team: Cli) -> None:
        """A bad line is named on stderr, the exit status is 2 and nothing is imported."""
        done = team.run("import", "--format", "beads", "-", stdin='{"id": "a", "title": "A"}\n{oops\n')
        assert done.returncode == 2
        assert "line 2: not JSON" in done.stderr
        assert "Parser" in team.ok("show")

    def test_an_issue_of_the_wrong_shape_exits_2_naming_its_line_and_field(self, team: Cli) -> None:
        """An object status is named with its line and field, not a traceback; nothing is imported."""
        text = '{"id": "a", "title": "A", "status": {"name": "open"}}\n'
        done = team.run("import", "--format", "beads", "-", stdin=text)
        assert done.returncode == 2
        assert "line 1: issue 'a': 'status' must be a string, not a JSON object" in done.stderr
        assert "Traceback" not in done.stderr
        assert "Parser" in team.ok("show")

    def test_more_issues_than_a_plan_may_hold_exit_2_naming_the_limit(self, team: Cli) -> None:
        """Past max_tasks, as a Markdown import: exit 2 naming the limit, nothing imported."""
        text = "".join(f'{{"id":"b{n}","title":"T{n}"}}\n' for n in range(100_001))
        done = team.run("import", "--format", "beads", "-", stdin=text)
        assert done.returncode == 2
        assert "over the limit max_tasks=100,000" in done.stderr
        assert "Parser" in team.ok("show")

    def test_what_is_not_kept_is_said_on_stderr(self, team: Cli) -> None:
        """The import's non-fatal errors go to stderr; the plan is still imported."""
        text = '{"id": "x", "title": "Gone", "status": "tombstone"}\n{"id": "y", "title": "Kept"}\n'
        done = team.run("--session", "other", "import", "--format", "beads", "-", stdin=text)
        assert done.returncode == 0, done.stderr
        assert "issue 'x' is deleted (tombstone): not imported" in done.stderr
        assert "Kept" in team.ok("--session", "other", "show")


class TestLease:
    def test_lease_gives_the_claim_a_deadline(self, team: Cli) -> None:
        """start --agent NAME --lease SECONDS claims with a lease that the plan records."""
        team.ok("start", "--agent", "w1", "--lease", "30")
        task = team.phases()[0]["tasks"][0]
        assert task["owner"] == "w1"
        assert task["lease"]["epoch"] == 1
        assert task["lease"]["until"] > 0

    def test_a_bad_lease_is_refused(self, team: Cli) -> None:
        """--lease takes a positive number of seconds."""
        refused = team.run("start", "--agent", "w1", "--lease", "-3")
        assert refused.returncode == 2
        assert "--lease" in refused.stderr
