"""A league's backup restored, as docs/deploy.md tells it (issue 35).

A league on PostgreSQL (a club's history moved in with ``referee db copy``, and games played
there through the service) dumped with ``pg_dump -Fc`` and restored with ``pg_restore`` into a
new database is the same league: ``referee db verify`` passes on every log, and a referee on the
restored database with the league's state folder finds its heads journal covering every game
and serves the same heads. A dump taken before further moves, restored, is a database rolled
back: the heads journal names what it lost, and the games it set back are held for the judge,
never served as if nothing happened. The guide's way out (the journal moved aside, a start
with ``--accept-missing-journal``) serves it as restored, logged for the judge.

Also: the guide's systemd unit and Containerfile are well formed, and every ``referee ...``
command line in the guide parses with the real argument parser, so the guide cannot rot.
"""

from __future__ import annotations

import argparse
import random
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import in_ci
from pg_helpers import Cluster
from service_helpers import Table

from referee.errors import Held
from referee.place import ENV_DB, ENV_STATE
from referee.service import Referee, open_referee
from web.cli import main

ROOT = Path(__file__).resolve().parent.parent
GUIDE = ROOT / "docs" / "deploy.md"
UNIT = ROOT / "docs" / "deploy" / "referee.service"
CONTAINERFILE = ROOT / "docs" / "deploy" / "Containerfile"


@pytest.fixture(autouse=True)
def own_state_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test writes a state folder in the user's home."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state-home"))
    monkeypatch.delenv(ENV_STATE, raising=False)
    monkeypatch.delenv(ENV_DB, raising=False)


# ---- the league, its dump and its restore ------------------------------------------------------


def _tool(name: str) -> str:
    found = shutil.which(name) or (f"/usr/bin/{name}" if Path(f"/usr/bin/{name}").exists() else "")
    if not found:
        why = f"{name} is missing: the restore tests need PostgreSQL's client programs"
        if in_ci():
            pytest.fail(why, pytrace=False)
        pytest.skip(why)
    return found


def pg_dump(dsn: str, out: Path) -> None:
    """``pg_dump -Fc`` of the database ``dsn`` into ``out``, as docs/deploy.md's nightly backup."""
    subprocess.run(
        [_tool("pg_dump"), "-Fc", "--no-owner", "-f", str(out), "-d", dsn],
        check=True,
        capture_output=True,
        timeout=120,
    )


def pg_restore(cluster: Cluster, dump: Path) -> str:
    """A new database of ``cluster`` holding ``dump`` (``pg_restore`` as the guide runs it);
    its connection string."""
    dsn = cluster.new_database()
    subprocess.run(
        [_tool("pg_restore"), "--no-owner", "--no-acl", "--exit-on-error", "-d", dsn, str(dump)],
        check=True,
        capture_output=True,
        timeout=120,
    )
    return dsn


def league(tmp_path: Path, dsn: str) -> tuple[Path, list[Table[Referee]], Referee]:
    """A league on ``dsn``: a club's simulated event copied in (``referee db copy``), then two
    Hera & Zeus games set up and played a few moves through the service. Returns the state
    folder, the games being played and the open referee (close its store)."""
    club = tmp_path / "club.sqlite3"
    assert main(["event", "simulate", "--players", "4", "--rounds", "1", "--db", str(club)]) == 0
    state = tmp_path / "league-state"
    assert main(["db", "copy", str(club), dsn, "--to-state", str(state), "--quiet"]) == 0
    ref = open_referee(dsn, state=state)
    tables = []
    for seed in (1, 2):
        t = Table(ref, random.Random(seed))
        t.setup()
        for _ in range(4):
            t.step()
        tables.append(t)
    return state, tables, ref


def heads(ref: Referee) -> dict[str, tuple[int, str]]:
    """Every log's stored head (games and event logs)."""
    out = {}
    for sid in ref.store.games() + ref.store.event_logs():
        head = ref.store.head(sid)
        assert head is not None
        out[sid] = head
    return out


def test_a_dump_restored_into_a_new_database_verifies_and_serves_the_same_heads(
    tmp_path: Path, pg_dsn: str, pg_cluster: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    state, tables, ref = league(tmp_path, pg_dsn)
    try:
        before = heads(ref)
    finally:
        ref.store.close()
    dump = tmp_path / "league.dump"
    pg_dump(pg_dsn, dump)
    restored = pg_restore(pg_cluster, dump)
    try:
        capsys.readouterr()
        assert main(["db", "verify", "--db", restored, "--state", str(state)]) == 0
        n = len(before)
        assert f"{n} of {n} logs verify" in capsys.readouterr().out
        again = open_referee(restored, state=state)
        try:
            assert again.journal_gap() is None
            assert heads(again) == before
            for t in tables:
                served = again.head(t.game)
                assert (served["seq"], served["hash"]) == before[t.game]
        finally:
            again.store.close()
    finally:
        pg_cluster.drop_database(restored)


def rolled_back(
    tmp_path: Path, dsn: str, cluster: Cluster
) -> tuple[Path, Table[Referee], Table[Referee], Table[Referee], str]:
    """A league dumped, then played on (three more moves of one game, and a game created),
    and the dump restored into a new database: the state folder, the game moved after the
    dump, one that was not, the game created after it, and the restored database."""
    state, tables, ref = league(tmp_path, dsn)
    dump = tmp_path / "before.dump"
    try:
        pg_dump(dsn, dump)
        moved = tables[0]
        for _ in range(3):  # played after the dump: the journal has these heads
            moved.step()
        late = Table(ref, random.Random(3))  # created after the dump
        late.setup()
    finally:
        ref.store.close()
    return state, moved, tables[1], late, pg_restore(cluster, dump)


def test_a_dump_from_before_the_last_moves_restored_has_those_games_held_and_named(
    tmp_path: Path, pg_dsn: str, pg_cluster: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    state, moved, still, _late, restored = rolled_back(tmp_path, pg_dsn, pg_cluster)
    try:
        again = open_referee(restored, state=state)
        try:
            with pytest.raises(Held, match="went backwards"):
                again.folded(moved.game)
            again.folded(still.game)  # a game no move reached after the dump is served
        finally:
            again.store.close()
        capsys.readouterr()
        assert main(["db", "verify", "--db", restored, "--state", str(state)]) == 1
        out = capsys.readouterr().out
        assert f"FAILED {moved.game}" in out and "went backwards" in out
        assert still.game not in out
    finally:
        pg_cluster.drop_database(restored)


@pytest.mark.xfail(
    strict=True,
    reason="not built: journal_gap() (the check at start) names only games the journal is "
    "behind on; a database behind its journal starts, its set-back games are held when read, "
    "and a game created after the dump is absent and named by nothing (docs/deploy.md)",
)
def test_the_start_check_names_the_games_a_restore_set_back_or_lost(
    tmp_path: Path, pg_dsn: str, pg_cluster: Cluster
) -> None:
    state, moved, still, late, restored = rolled_back(tmp_path, pg_dsn, pg_cluster)
    try:
        again = open_referee(restored, state=state)
        try:
            gap = again.journal_gap()
            assert gap is not None and moved.game in gap and late.game in gap
            assert still.game not in gap
        finally:
            again.store.close()
    finally:
        pg_cluster.drop_database(restored)


def test_a_rolled_back_restore_is_served_only_with_the_journal_moved_aside_and_said_so(
    tmp_path: Path, pg_dsn: str, pg_cluster: Cluster
) -> None:
    from web.serve import journal_check

    state, tables, ref = league(tmp_path, pg_dsn)
    dump = tmp_path / "before.dump"
    try:
        pg_dump(pg_dsn, dump)
        tables[0].step()
    finally:
        ref.store.close()
    restored = pg_restore(pg_cluster, dump)
    try:
        journal = state / "referee.heads"
        journal.rename(state / "referee.heads.before-restore")  # kept: it is the evidence
        again = open_referee(restored, state=state)
        try:
            with pytest.raises(SystemExit, match="--accept-missing-journal"):
                journal_check(again, "league", accept=False)
        finally:
            again.store.close()
        again = open_referee(restored, state=state)
        try:
            said = journal_check(again, "league", accept=True)
            assert said is not None and "--accept-missing-journal" in said
            assert again.journal_gap() is None
            again.folded(tables[0].game)  # served as restored
        finally:
            again.store.close()
    finally:
        pg_cluster.drop_database(restored)


# ---- the guide's files and commands -----------------------------------------------------------


def guide_commands() -> list[str]:
    """Every command line of docs/deploy.md's code blocks that runs ``referee`` (itself, by a
    path ending ``/referee``, or after ``sudo -u USER``), continuation lines joined."""
    text = GUIDE.read_text("utf-8")
    lines = []
    for block in re.findall(r"^ *```[a-z]*\n(.*?)^ *```", text, re.M | re.S):
        joined = re.sub(r"\\\n\s*", " ", block)
        for line in joined.splitlines():
            m = re.match(r"\s*(?:sudo -u \S+ )?(?:\S*/)?referee (.*)$", line.split(" #", 1)[0])
            if m:
                lines.append("referee " + m.group(1).strip())
    return lines


def unit_and_container_commands() -> list[str]:
    """The ``referee`` command the systemd unit and the Containerfile run."""
    unit = UNIT.read_text("utf-8")
    start = re.search(r"^ExecStart=\S*/referee (.*)$", unit, re.M)
    assert start is not None, "the unit runs no referee"
    import json

    container = CONTAINERFILE.read_text("utf-8")
    cmd = re.search(r"^CMD (\[.*\])$", container, re.M)
    assert cmd is not None, "the Containerfile has no CMD"
    return ["referee " + start.group(1), shlex.join(["referee", *json.loads(cmd.group(1))])]


def test_the_guide_shows_the_commands_it_promises() -> None:
    words = {" ".join(shlex.split(c)[1:3]) for c in guide_commands()}
    for command in ("db upgrade", "db copy", "db verify"):
        assert command in words, command
    assert any(c.startswith("referee serve") for c in guide_commands())


def exact(parser: argparse.ArgumentParser) -> None:
    """No abbreviated option is taken for a whole one (``--accept-missing`` for
    ``--accept-missing-journal``), in ``parser`` and every subcommand's parser."""
    parser.allow_abbrev = False
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                exact(sub)


@pytest.mark.parametrize("line", guide_commands() + unit_and_container_commands())
def test_every_referee_command_in_the_guide_parses(line: str) -> None:
    from web.cli import build_parser

    argv = shlex.split(line)[1:]
    argv = [re.sub(r"^\$\{?(\w+)\}?$", r"postgresql://referee@db/\1", a) for a in argv]
    parser = build_parser()
    exact(parser)
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:
        pytest.fail(f"docs/deploy.md: `{line}` does not parse ({e.code})")
    assert callable(getattr(args, "func", None)), line


def test_the_systemd_unit_is_well_formed() -> None:
    tool = shutil.which("systemd-analyze")
    if tool is None:
        pytest.skip("no systemd-analyze on this machine to check the unit with")
    done = subprocess.run(
        [tool, "verify", "--man=no", str(UNIT)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    # the unit names a user and a program this machine does not have: only the unit's own
    # syntax and settings are judged here
    problems = [
        line
        for line in done.stderr.splitlines()
        if line.strip()
        and "is not executable" not in line
        and "No such file" not in line
        and "Failed to prepare filename" not in line
        and "Command /opt/referee" not in line
        and "not found" not in line.lower()
        and "system has not been booted" not in line.lower()
    ]
    assert problems == [], done.stderr


def test_the_unit_runs_the_referee_unprivileged_with_its_secrets_outside_it() -> None:
    unit = UNIT.read_text("utf-8")
    settings = dict(
        line.split("=", 1) for line in unit.splitlines() if "=" in line and line[0] != "#"
    )
    assert settings["User"] != "root" and settings["NoNewPrivileges"] == "yes"
    assert settings["ProtectSystem"] == "strict" and "ReadWritePaths" in settings
    assert settings["Restart"] == "on-failure" and "EnvironmentFile" in settings
    lines = [line for line in unit.splitlines() if not line.startswith("#")]
    assert not [line for line in lines if "postgresql://" in line or "password" in line.lower()]
    assert settings["LoadCredential"].startswith("pgpass:")  # the password file, not its text


INSTRUCTIONS = {"FROM", "RUN", "COPY", "ADD", "ENV", "ARG", "USER", "WORKDIR", "VOLUME"}
INSTRUCTIONS |= {"EXPOSE", "CMD", "ENTRYPOINT", "LABEL", "HEALTHCHECK", "STOPSIGNAL", "SHELL"}


def test_the_containerfile_is_well_formed_and_runs_as_no_root() -> None:
    text = CONTAINERFILE.read_text("utf-8")
    joined = re.sub(r"\\\n", " ", text)
    steps = [line.strip() for line in joined.splitlines() if line.strip()]
    steps = [s for s in steps if not s.startswith("#")]
    words = [s.split(None, 1)[0] for s in steps]
    assert set(words) <= INSTRUCTIONS, set(words) - INSTRUCTIONS
    assert words[0] in ("FROM", "ARG") and steps[0].startswith("FROM python:3.11-slim")
    users = [s.split(None, 1)[1] for s in steps if s.startswith("USER ")]
    assert users and users[-1] not in ("root", "0")
    assert any(s.startswith("VOLUME") for s in steps)
    for s in steps:
        if s.startswith(("CMD", "ENTRYPOINT")) and s.split(None, 1)[1].startswith("["):
            import json

            json.loads(s.split(None, 1)[1])  # the exec form is a JSON array


def test_a_non_editable_install_carries_every_file_the_server_reads() -> None:
    """The Containerfile installs the project with ``pip install`` (not editable): every file
    under the packages that is not Python (templates, static files, card data, migrations) is
    package data, or the installed server lacks it."""
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
    data = config["tool"]["setuptools"]["package-data"]
    carried = {
        p
        for package, patterns in data.items()
        for pattern in patterns
        for p in (ROOT / package.replace(".", "/")).glob(pattern)
        if p.is_file()
    }
    tops = config["tool"]["setuptools"]["packages"]["find"]["include"]
    files = {
        p
        for top in tops
        for p in ROOT.glob(top.rstrip("*") + "/**/*")
        if p.is_file() and p.suffix not in (".py", ".pyc") and "__pycache__" not in p.parts
    }
    assert sorted(str(p.relative_to(ROOT)) for p in files - carried) == []
