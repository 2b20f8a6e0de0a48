"""Bad input gets a clear error and changes nothing, everywhere (issue 6, section 5).

Found: 15 inputs raised raw exceptions instead of a service error (a list as game id, a key
given as a dict, ``seat_for_code("é")``, a non-mapping observation, ``undo(to="3")``,
``reason=None``, ``amend(raw=None)``, ``switches=[1]``, deep nesting in a note,
``create_game(game=123)``, which also poisoned the database...); the CLI printed tracebacks for
deeply nested JSON, huge numbers and malformed bodies, and ``export --db typo`` created an empty
database; a full disk surfaced as a raw ``OperationalError``; a 5 MB note made a 5 MB record.

- A seeded Hypothesis fuzz over every public method of :class:`Referee` with arbitrary JSON-ish
  values, wrong types, huge integers, deep nesting, long and odd strings: only
  :class:`ServiceError` comes out, and after every refusal the store's games, heads and records
  are unchanged (except the one record a refusal is documented to write: an ``ask`` for another
  seat, an irregularity for the judge). Every stored game still exports and verifies.
- The same over every CLI command (in process, with made-up files and arguments; and a few real
  subprocesses): exit status 0, 1 or 2, one line on stderr, never a traceback.
- Storage faults: a full disk, a read-only file, a locked database give one ``Unavailable``
  error, write nothing, and reads keep working.
"""

from __future__ import annotations

import contextlib
import inspect
import io
import json
import os
import random
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from service_helpers import SIGNER, Table, header, make_referee

from referee.herazeus.game import may_cut
from referee.log import MAX_LINE, Record, verify
from referee.service import NeedsInput, Referee, Refused, ServiceError, Unavailable
from referee.store import MemoryStore, SQLiteStore, Store
from web import cli

ROOT = Path(__file__).resolve().parent.parent
FUZZ = settings(
    derandomize=True,  # seeded: the same cases on every run
    deadline=None,
    max_examples=250,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def nested(depth: int, leaf: Any = 1) -> Any:
    out: Any = leaf
    for i in range(depth):
        out = {"a": out} if i % 2 else [out]
    return out


# ---- values --------------------------------------------------------------------------------

ODD_STRINGS = [
    "",
    " ",
    "é",
    "\ud800",
    "\x00",
    "a\nb",
    "$sealed",
    "../../etc/passwd",
    "g" * 65,
    "x" * 5_000_000,  # a 5 MB note
    "1" * 5000,
    "hera",
    "zeus",
    "judge",
    "public",
    "Hydra",
    "?",
    "Poseidon/zeus",
]
ODD_VALUES: list[Any] = [
    None,
    True,
    0,
    -1,
    2**31,
    2**63,
    10**5000,  # more than 4,300 digits
    float("nan"),
    float("inf"),
    1.5,
    b"bytes",
    object(),
    {1: "an int key"},
    {("a",): "a tuple key"},
    {"$sealed": "00"},
    nested(50),
    nested(5000),
    [1] * 100_000,
    {f"k{i}": i for i in range(1000)},
    {"x"},
]

leaf = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(),
    st.text(max_size=30),
    st.sampled_from(ODD_STRINGS),
)
json_ish = st.recursive(
    leaf,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(
            st.one_of(st.text(max_size=10), st.sampled_from(ODD_STRINGS)), inner, max_size=4
        ),
    ),
    max_leaves=12,
)
anything = st.one_of(json_ish, st.sampled_from(ODD_VALUES))

ACTIONS = [
    "draw",
    "play",
    "challenge",
    "pegasus",
    "pythia",
    "sirens",
    "hades",
    "persephone",
    "dionysus",
    "god",
    "remove_figure",
    "end_turn",
    "declare_stuck",
    "starter",
    "deal",
    "first_row",
    "redraw",
]
FIELDS = [
    "card",
    "column",
    "target",
    "mode",
    "player",
    "cards",
    "pick",
    "place",
    "reveal",
    "order",
    "from",
    "to",
    "at",
    "defender",
    "attacker",
    "hand",
]
near_action = st.builds(
    lambda do, extra: {"do": do, **extra},
    st.sampled_from(ACTIONS),
    st.dictionaries(
        st.sampled_from(FIELDS),
        st.one_of(
            st.integers(-3, 12),
            st.sampled_from(
                ["Hydra", "?", "Pegasus", "hand", "field", "spy", "reveal", "hera", "zeus", "1"]
            ),
            st.lists(st.sampled_from(["Hydra", "Harpy", "?", "Zeus"]), max_size=4),
            anything,
        ),
        max_size=4,
    ),
)
action = st.one_of(near_action, anything)
game = st.one_of(st.just("g"), st.just("nope"), anything)
seat = st.one_of(st.sampled_from(["hera", "zeus", "judge", "public"]), anything)
number = st.one_of(st.integers(-2, 200), anything)
text = st.one_of(st.text(max_size=40), anything)
observation = st.one_of(
    st.fixed_dictionaries(
        {
            "player": st.one_of(st.sampled_from(["hera", "zeus"]), anything),
            "zone": st.one_of(st.sampled_from(["hand", "field"]), anything),
            "card": st.one_of(
                st.sampled_from(["Hydra", "Harpy", "Poseidon/zeus", "Io", "?"]), anything
            ),
        },
        optional={"column": number, "position": number, "source": text},
    ),
    anything,
)
key = st.one_of(st.none(), st.text(max_size=10), anything)

# every public method of Referee, with a strategy for its arguments
CALLS: dict[str, Callable[[st.DataObject], tuple[tuple[Any, ...], dict[str, Any]]]] = {
    "create_game": lambda d: (
        (),
        d.draw(
            st.fixed_dictionaries(
                {},
                optional={
                    "profile": st.one_of(st.sampled_from(["rio-grande", "kosmos"]), anything),
                    "switches": anything,
                    "players": anything,
                    "starting": anything,
                    "catalogue": anything,
                    "game": st.one_of(st.just("g"), st.just("new"), anything),
                },
            )
        ),
    ),
    "seat_for_code": lambda d: ((d.draw(game), d.draw(text)), {}),
    "view": lambda d: ((d.draw(game), d.draw(seat)), {}),
    "log": lambda d: (
        (d.draw(game), d.draw(seat)),
        d.draw(st.fixed_dictionaries({}, optional={"upto": number})),
    ),
    "export": lambda d: ((d.draw(game), d.draw(seat)), {}),
    "replay": lambda d: ((d.draw(game), d.draw(seat)), {}),
    "head": lambda d: ((d.draw(game),), {}),
    "overview": lambda d: ((d.draw(seat),), {}),
    "games": lambda d: ((), {}),
    "submit": lambda d: (
        (d.draw(game), d.draw(seat), d.draw(action)),
        d.draw(st.fixed_dictionaries({}, optional={"key": key, "expected_seq": number})),
    ),
    "answer": lambda d: (
        (d.draw(game), d.draw(seat), d.draw(anything)),
        d.draw(st.fixed_dictionaries({}, optional={"key": key})),
    ),
    "observe": lambda d: ((d.draw(game), d.draw(seat), d.draw(observation)), {}),
    "call_judge": lambda d: (
        (d.draw(game), d.draw(seat)),
        d.draw(st.fixed_dictionaries({}, optional={"note": text})),
    ),
    "resolve": lambda d: ((d.draw(game), d.draw(seat), d.draw(number), d.draw(text)), {}),
    "reissue": lambda d: ((d.draw(game), d.draw(seat), d.draw(seat)), {}),
    "undo": lambda d: ((d.draw(game), d.draw(seat), d.draw(number), d.draw(text)), {}),
    "amend": lambda d: (
        (d.draw(game), d.draw(seat), d.draw(number), d.draw(action), d.draw(text)),
        {},
    ),
    "ruling": lambda d: (
        (d.draw(game), d.draw(seat), d.draw(action)),
        d.draw(st.fixed_dictionaries({}, optional={"at": number})),
    ),
    "import_log": lambda d: ((d.draw(st.one_of(anything, st.sampled_from(logs()))),), {}),
    "wait": lambda d: (
        (
            d.draw(game),
            d.draw(number),
            d.draw(st.one_of(st.sampled_from([0, 0.01, -1, float("nan"), 10**400, "1"]), anything)),
        ),
        {},
    ),
    "fingerprint": lambda d: ((), {}),
    "folded": lambda d: ((d.draw(game),), {}),
    "kit": lambda d: ((d.draw(game),), {}),
    "card_names": lambda d: ((d.draw(game),), {}),
}


def public_methods() -> set[str]:
    return {n for n in dir(Referee) if not n.startswith("_") and callable(getattr(Referee, n))}


# ---- the game every example starts from ------------------------------------------------------


def _base() -> tuple[list[Record], dict[str, str], dict[str, str]]:
    ref = make_referee(seed=21)
    t = Table(ref, random.Random(21), game="g", unknown_draw=0.5, unscanned_play=0.5)
    t.setup()
    for _ in range(25):
        t.step()
    records = t.records()
    return records, ref.store.secrets("g"), t.codes


BASE, BASE_SECRETS, CODES = _base()
_good_log = make_referee(seed=21)
_good_log.store.append(BASE, BASE_SECRETS)
GOOD_EXPORT = _good_log.export("g", "judge")
_good_log.create_game(game="g3")
OTHER_EXPORT = _good_log.export("g3", "judge")  # a whole log of a game not in the base store
_LOGS = [
    GOOD_EXPORT,
    _good_log.export("g", "hera"),
    GOOD_EXPORT.replace('"g"', '"other"'),
    GOOD_EXPORT.replace("Hydra", "Harpy"),
    GOOD_EXPORT[: len(GOOD_EXPORT) // 2],
    "\n".join([*GOOD_EXPORT.splitlines()[:1], json.dumps(nested(100))]),
    "[" * 100_000,
    "1" * 5000,
    "",
]


def logs() -> list[str]:
    return _LOGS


def fresh() -> Referee:
    store = MemoryStore()
    store.append(BASE, BASE_SECRETS)
    return make_referee(store, seed=22)


def snapshot(store: Store) -> dict[str, list[str]]:
    return {g: [r.hash for r in store.records(g)] for g in store.games()}


def allowed_write(
    e: ServiceError, before: dict[str, list[str]], after: dict[str, list[str]]
) -> bool:
    """The refusals documented to write one record: a question recorded for another seat, and
    a contradiction recorded for the judge (D20)."""
    if before.keys() != after.keys():
        return False
    grown = [g for g in before if after[g] != before[g]]
    if not grown:
        return True
    (g,) = grown
    one_more = after[g][:-1] == before[g]
    return one_more and (
        (isinstance(e, NeedsInput) and e.seq is not None)
        or (isinstance(e, Refused) and e.rule == "D20")
    )


def every_game_exports_and_verifies(ref: Referee) -> None:
    for g in ref.store.games():
        records = ref.store.records(g)
        assert all(len(r.to_line()) < 20_000 for r in records), "a record grew out of bounds"
        for seat in ("judge", "hera", "zeus", "public"):
            text = ref.export(g, seat)
            assert text.count("\n") == len(records) + 1
        v = verify(ref.reader.header(g, "judge"), records, may_cut=may_cut)
        assert v.ok, v.message()


def generic(name: str, d: st.DataObject) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """Arguments for a public method without a tailored strategy: anything, for each of its
    parameters without a default."""
    params = [
        p
        for p in inspect.signature(getattr(Referee, name)).parameters.values()
        if p.name != "self" and p.default is inspect.Parameter.empty
    ]
    return tuple(d.draw(st.one_of(game, seat, anything)) for _ in params), {}


def test_the_fuzz_covers_every_public_method() -> None:
    named = {
        "create_game",
        "seat_for_code",
        "view",
        "log",
        "export",
        "submit",
        "answer",
        "observe",
        "call_judge",
        "resolve",
        "reissue",
        "undo",
        "amend",
        "ruling",
        "import_log",
        "wait",
    }
    assert named <= set(CALLS) and set(CALLS) <= public_methods(), set(CALLS) ^ public_methods()


@pytest.mark.fuzz
@FUZZ
@given(st.data())
def test_the_api_answers_every_input_with_a_service_error_and_refusals_change_nothing(
    data: st.DataObject,
) -> None:
    ref = fresh()
    for _ in range(data.draw(st.integers(1, 4))):
        name = data.draw(st.sampled_from(sorted(public_methods())))
        args, kwargs = CALLS[name](data) if name in CALLS else generic(name, data)
        before = snapshot(ref.store)
        try:
            getattr(ref, name)(*args, **kwargs)
        except ServiceError as e:
            after = snapshot(ref.store)
            assert allowed_write(e, before, after), f"{name} refused ({e.message}) but wrote"
            assert e.message and "\n" not in e.message and len(e.message) < 1000
            json.dumps(e.to_json())  # every refusal can be sent as JSON
    every_game_exports_and_verifies(ref)


@pytest.mark.parametrize(
    "call",
    [
        lambda r: r.submit("g", "hera", "draw"),
        lambda r: r.submit("g", "hera", None),
        lambda r: r.submit("g", "hera", {"do": "draw"}, key={"k": 1}),
        lambda r: r.view(["g"], "hera"),
        lambda r: r.observe("g", "hera", ["hand", "Hydra"]),
        lambda r: r.undo("g", "judge", "3", "typo"),
        lambda r: r.undo("g", "judge", 3, None),
        lambda r: r.amend("g", "judge", 3, None, "typo"),
        lambda r: r.create_game(switches=[1]),
        lambda r: r.create_game(game=123),
        lambda r: r.call_judge("g", "hera", nested(5000)),
        lambda r: r.call_judge("g", "hera", "x" * 5_000_000),
        lambda r: r.submit("g", "hera", {"do": "draw", "note": "x" * 5_000_000}),
        lambda r: r.submit("g", "hera", {"do": "draw", "n": 10**5000}),
        lambda r: r.wait("g", "3", 0.01),
        lambda r: r.wait(["g"], 3, 0.01),
        lambda r: r.wait("g", 3, "soon"),
        lambda r: r.log("g", "judge", upto="3"),
        lambda r: r.import_log(None),
        lambda r: r.reissue(["g"], "judge", "hera"),
        lambda r: r.head({"g": 1}),
        lambda r: r.ruling(["g"], "judge", {"do": "draw"}),
        lambda r: r.idle_games("judge", "g"),
        lambda r: r.idle_games("judge", 5, "page two"),
    ],
)
def test_the_inputs_found_raising_raw_exceptions_are_refused(
    call: Callable[[Referee], Any],
) -> None:
    ref = fresh()
    before = snapshot(ref.store)
    with pytest.raises(ServiceError):
        call(ref)
    assert snapshot(ref.store) == before
    every_game_exports_and_verifies(ref)


def test_a_code_in_any_alphabet_opens_no_seat() -> None:
    ref = fresh()
    for code in ("é", "\ud800", "", "x" * 10_000, CODES["hera"] + " "):
        assert ref.seat_for_code("g", code) == "public"
    assert ref.seat_for_code("g", CODES["hera"]) == "hera"


# ---- the CLI -------------------------------------------------------------------------------


@contextlib.contextmanager
def captured() -> Iterator[tuple[io.StringIO, io.StringIO]]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        yield out, err


def run_main(argv: list[str], stdin: str = "") -> tuple[int, str, str]:
    """``referee ARGV`` in process: (exit status, stdout, stderr). Fails on any exception."""
    old = sys.stdin
    sys.stdin = io.StringIO(stdin)
    try:
        with captured() as (out, err):
            try:
                rc = cli.main(argv)
            except SystemExit as e:  # argparse: --help, or a usage error
                rc = e.code if isinstance(e.code, int) else 2
    finally:
        sys.stdin = old
    return rc, out.getvalue(), err.getvalue()


def well_behaved(argv: list[str], rc: int, err: str) -> None:
    assert rc in (0, 1, 2), (argv, rc, err)
    assert "Traceback" not in err, (argv, err)
    lines = err.splitlines()
    if rc == 2:
        assert lines, (argv, "exit 2 without a message")
        usage = any(ln.startswith("usage:") for ln in lines)
        # argparse prints its usage and one error line; the referee one line
        assert usage or len(lines) == 1, (argv, err)
        assert lines[-1].startswith("referee"), (argv, err)
    else:
        assert len(lines) <= 1, (argv, err)


def file_texts() -> st.SearchStrategy[str]:
    return st.one_of(
        st.sampled_from(_LOGS),
        st.sampled_from(
            [
                "{" * 100_000,
                "[" * 50 + "]" * 50,
                '{"a": 1, "a": 2}',
                "NaN",
                "1e999",
                '{"position": ' + "9" * 5000 + "}",
            ]
        ),
        json_ish.map(lambda v: json.dumps(v, default=str)),
        st.text(max_size=200),
        st.builds(
            lambda text, i, junk: "\n".join(
                ln if n != i else junk for n, ln in enumerate(text.splitlines())
            ),
            st.just(GOOD_EXPORT),
            st.integers(0, 30),
            st.one_of(json_ish.map(json.dumps), st.text(max_size=40)),
        ),
    )


@pytest.fixture(scope="module")
def workdir() -> Iterator[Path]:
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        store = SQLiteStore(d / "good.sqlite3")
        store.append(BASE, BASE_SECRETS)
        store.close()
        SIGNER_KEY = d / "good.sqlite3.key"
        from referee.keys import Signer

        Signer.load_or_create(SIGNER_KEY)
        (d / "folder.sqlite3").mkdir()
        (d / "garbage.sqlite3").write_bytes(os.urandom(4096))
        (d / "garbage.sqlite3.key").write_bytes(SIGNER_KEY.read_bytes())
        yield d


def cli_args(d: Path) -> st.SearchStrategy[list[str]]:
    db = st.sampled_from(
        [str(d / n) for n in ("good.sqlite3", "folder.sqlite3", "garbage.sqlite3", "typo.sqlite3")]
    )
    log = st.just(str(d / "in.txt"))
    word = st.one_of(
        st.text(min_size=1, max_size=12).filter(lambda s: "\x00" not in s),
        st.sampled_from(["g", "-", "--", "-1", "1" * 5000]),
    )
    return st.one_of(
        st.tuples(st.just("rule"), st.sampled_from([[], ["--json"]]), log).map(
            lambda t: [t[0], *t[1], t[2]]
        ),
        st.tuples(
            st.just("verify"),
            st.lists(st.sampled_from(["--redacted"]), max_size=1),
            st.one_of(st.just([]), st.tuples(st.just("--key"), word).map(list)),
            st.one_of(st.just([]), st.tuples(st.just("--head"), word).map(list)),
            log,
        ).map(lambda t: [t[0], *t[1], *t[2], *t[3], t[4]]),
        st.tuples(
            st.just("replay"),
            st.sampled_from([[], ["--json"]]),
            st.one_of(
                st.just([]),
                st.tuples(st.just("--at"), st.sampled_from(["0", "3", "-1", "x", "9" * 5000])).map(
                    list
                ),
            ),
            log,
        ).map(lambda t: [t[0], *t[1], *t[2], t[3]]),
        st.tuples(
            st.just("export"),
            st.one_of(st.just("g"), word),
            db,
            st.sampled_from(["hera", "zeus", "judge", "public", "nobody"]),
        ).map(lambda t: [t[0], t[1], "--db", t[2], "--seat", t[3]]),
        st.tuples(
            st.just("import"),
            log,
            db,
            st.sampled_from([[], ["--yes"], ["--head", "3:00000000"], ["--head", "x"]]),
        ).map(lambda t: [t[0], t[1], "--db", t[2], *t[3]]),
        st.tuples(st.just("games"), db).map(lambda t: [t[0], "--db", t[1]]),
    )


@pytest.mark.fuzz
@FUZZ
@given(st.data())
def test_every_cli_command_answers_bad_input_without_a_traceback(
    workdir: Path, data: st.DataObject
) -> None:
    (workdir / "in.txt").write_text(
        data.draw(file_texts()), encoding="utf-8", errors="surrogatepass"
    )
    before = sorted(p.name for p in workdir.iterdir())
    argv = data.draw(cli_args(workdir))
    rc, _, err = run_main(argv)
    well_behaved(argv, rc, err)
    # read-only commands never create a file (SQLite's -wal/-shm beside an existing database
    # are its own, made when a reader opens a WAL database)
    after = sorted(p.name for p in workdir.iterdir() if not p.name.endswith(("-wal", "-shm")))
    before = [n for n in before if not n.endswith(("-wal", "-shm"))]
    if argv[0] != "import":
        assert after == before, (argv, set(after) ^ set(before))


@pytest.mark.parametrize(
    "command",
    [
        "rule",
        "verify",
        "replay",
        "export",
        "import",
        "games",
        "trust",
        "serve",
        "kit",
        "scan",
        "table",
        "deckcheck",
        "camera-check",
        "event",
    ],
)
def test_every_command_has_help(command: str) -> None:
    usage = cli.build_parser().format_usage()
    assert command in usage.split("{", 1)[1].split("}", 1)[0].split(","), usage
    rc, out, err = run_main([command, "--help"])
    assert rc == 0 and "usage:" in out and not err


def test_read_only_commands_never_create_a_database(tmp_path: Path) -> None:
    for argv in (
        ["export", "g", "--db", "typo"],
        ["games", "--db", "typo"],
        ["event", "list", "--db", "typo"],
        ["event", "export", "e", "--db", "typo"],
    ):
        old = Path.cwd()
        os.chdir(tmp_path)
        try:
            rc, out, err = run_main(argv)
        finally:
            os.chdir(old)
        assert rc == 2 and "no such database" in err and not out
        assert list(tmp_path.iterdir()) == []


def test_a_directory_or_a_non_database_as_db_is_one_line(workdir: Path) -> None:
    for name in ("folder.sqlite3", "garbage.sqlite3"):
        for argv in (
            ["games", "--db", str(workdir / name)],
            ["import", str(workdir / "in.txt"), "--db", str(workdir / name), "--yes"],
        ):
            (workdir / "in.txt").write_text(GOOD_EXPORT)
            rc, _, err = run_main(argv)
            assert rc == 2 and len(err.splitlines()) == 1, (argv, err)


@pytest.mark.process
@pytest.mark.parametrize(
    "argv,text",
    [
        (["verify", "-"], "[" * 200_000),
        (["replay", "-"], '{"format": ' + "9" * 5000 + "}"),
        (["rule", "-"], '{"deck": {"hera": ' + str(2**63) + "}}"),
        (["rule", "-"], '{"position": ' + "[" * 100_000 + "}"),
    ],
)
def test_the_cli_in_a_real_process_prints_one_line_not_a_traceback(
    argv: list[str], text: str
) -> None:
    p = subprocess.run(
        [sys.executable, "-m", "web.cli", *argv],
        input=text,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert p.returncode in (1, 2) and "Traceback" not in p.stderr
    assert len(p.stderr.splitlines()) == 1, p.stderr


# ---- storage faults ------------------------------------------------------------------------


def sqlite_game(tmp_path: Path) -> tuple[Referee, SQLiteStore]:
    store = SQLiteStore(tmp_path / "faults.sqlite3")
    store.append(BASE, BASE_SECRETS)
    return make_referee(store, seed=23), store


class Failing:
    """A connection that fails SQL statements starting with ``verb`` as SQLite would."""

    def __init__(self, db: sqlite3.Connection, verb: str, message: str) -> None:
        self.db, self.verb, self.message = db, verb, message

    def execute(self, sql: str, *args: Any) -> Any:
        if sql.upper().startswith(self.verb):
            raise sqlite3.OperationalError(self.message)
        return self.db.execute(sql, *args)

    def executemany(self, sql: str, *args: Any) -> Any:
        if sql.upper().startswith(self.verb):
            raise sqlite3.OperationalError(self.message)
        return self.db.executemany(sql, *args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.db, name)


def unchanged_and_readable(ref: Referee, before: dict[str, list[str]]) -> None:
    assert snapshot(ref.store) == before
    assert ref.view("g", "hera").to_json()["seq"] == len(BASE) - 1
    every_game_exports_and_verifies(ref)


WRITES: list[Callable[[Referee], Any]] = [
    lambda r: r.call_judge("g", "hera", "the disk"),
    lambda r: r.create_game(game="g2"),
    lambda r: r.reissue("g", "judge", "zeus"),
    lambda r: r.import_log(OTHER_EXPORT),
]


@pytest.mark.parametrize(
    "verb,message,phrase",
    [
        ("COMMIT", "database or disk is full", "the disk is full"),
        ("INSERT", "database or disk is full", "the disk is full"),
        ("INSERT", "attempt to write a readonly database", "read-only"),
        ("BEGIN", "database is locked", "locked"),
    ],
)
def test_a_storage_fault_is_one_unavailable_error_and_writes_nothing(
    tmp_path: Path, verb: str, message: str, phrase: str
) -> None:
    ref, store = sqlite_game(tmp_path)
    ref.view("g", "judge")
    before = snapshot(store)
    real = store._db()
    store._local.db = Failing(real, verb, message)
    for write in WRITES:
        with pytest.raises(Unavailable) as e:
            write(ref)
        assert phrase in e.value.message and "nothing was written" in e.value.message
        assert "\n" not in e.value.message
        assert not real.in_transaction
    store._local.db = real
    unchanged_and_readable(ref, before)
    ref.call_judge("g", "hera", "works again")  # the fault passed: writes work again


def test_a_full_disk_is_unavailable_and_reads_keep_working(tmp_path: Path) -> None:
    ref, store = sqlite_game(tmp_path)
    db = store._db()
    pages = db.execute("PRAGMA page_count").fetchone()[0]
    db.execute(f"PRAGMA max_page_count={pages}")  # the file may not grow: a full disk
    with pytest.raises(Unavailable, match="the disk is full"):
        for i in range(2000):
            before = snapshot(store)
            ref.call_judge("g", "hera", f"note {i} " + "x" * 400)
    assert snapshot(store) == before
    assert ref.view("g", "judge").to_json()["seq"] == len(before["g"]) - 1
    every_game_exports_and_verifies(ref)


def test_a_locked_database_is_unavailable_and_reads_keep_working(tmp_path: Path) -> None:
    ref, store = sqlite_game(tmp_path)
    store._db().execute("PRAGMA busy_timeout=50")  # do not wait 10 s for the lock here
    before = snapshot(store)
    other = sqlite3.connect(store.path, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(Unavailable, match="locked"):
            ref.call_judge("g", "hera", "locked out")
        unchanged_and_readable(ref, before)  # WAL: readers do not wait for the writer
    finally:
        other.execute("ROLLBACK")
        other.close()
    ref.call_judge("g", "hera", "unlocked")


def test_a_read_only_store_refuses_writes_and_serves_reads(tmp_path: Path) -> None:
    _, store = sqlite_game(tmp_path)
    store.close()
    ro = Referee(SQLiteStore(store.path, readonly=True), signer=SIGNER)
    before = snapshot(ro.store)
    for write in WRITES:
        with pytest.raises(Unavailable, match="read-only"):
            write(ro)
    unchanged_and_readable(ro, before)


def test_records_are_bounded_whatever_the_input(tmp_path: Path) -> None:
    ref = fresh()
    for raw in ({"do": "draw", "card": "x" * 5_000_000}, {"do": "play", "card": "Hydra" * 1000}):
        with pytest.raises(Refused):
            ref.submit("g", ref.view("g", "judge").to_json()["turn"]["player"], raw)
    longest = max(len(r.to_line()) for r in ref.store.records("g"))
    assert longest < MAX_LINE // 10
    assert header("g").game == "g"
