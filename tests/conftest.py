"""Shared fixtures. The position builder lives in ``helpers.py`` (import it: ``from helpers
import pos``); this file only makes the shared folders available to the tests that need them.

The shared folder (``scenarios/``, ``spec/``, ``tools/``) is found from the environment variable
``REFEREE_SHARED`` when it is set, else beside the checkout (``<repo>/../shared``). Where it is
missing, the tests that need it are skipped with the reason, except under CI (``CI`` set to a
true value, as ``.ci/run`` sets it), where they fail: in CI they always run.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:  # the PostgreSQL helpers are imported only by a test that asks for them
    from pg_helpers import Cluster

    from referee.store import Store

# the property and helper modules assert too: their failures explain themselves like a test's
pytest.register_assert_rewrite("privacy_property", "service_helpers", "web_helpers", "helpers")

REPO = Path(__file__).resolve().parent.parent


def shared_folder() -> Path:
    """Where the shared folder is: ``$REFEREE_SHARED``, else ``<repo>/../shared``."""
    named = os.environ.get("REFEREE_SHARED", "").strip()
    return Path(named).expanduser().resolve() if named else REPO.parent / "shared"


def in_ci() -> bool:
    """Whether the tests run under CI (``CI`` set to anything but empty, 0, false or no)."""
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def missing(why: str) -> None:
    """Skips the calling test with ``why``, or fails it under CI (where nothing may skip for
    want of the shared folder)."""
    if in_ci():
        pytest.fail(f"{why} (under CI this test must run; set REFEREE_SHARED)", pytrace=False)
    pytest.skip(f"{why}; set REFEREE_SHARED to the shared folder to run it")


SHARED = shared_folder()
SCENARIOS = SHARED / "scenarios"
EXAMPLES = REPO / "docs" / "examples"


def scenario_files() -> list[Path]:
    """The shared ruling files (none where the folder is missing)."""
    return sorted(SCENARIOS.glob("*.json")) if SCENARIOS.is_dir() else []


@pytest.fixture
def scenarios_dir() -> Path:
    """The shared ruling files; skipped where the folder is missing, failed under CI."""
    if not scenario_files():
        missing(f"no shared ruling files at {SCENARIOS}")
    return SCENARIOS


@pytest.fixture
def examples_dir() -> Path:
    """The ruling files shipped in ``docs/examples`` (part of the checkout: never skipped)."""
    assert EXAMPLES.is_dir(), f"no shipped examples at {EXAMPLES}"
    return EXAMPLES


# ---- stores ------------------------------------------------------------------------------------

STORE_KINDS = ("memory", "sqlite", pytest.param("postgres", marks=pytest.mark.postgres))


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[Cluster]:
    """A throwaway PostgreSQL cluster for the whole run (``tests/pg_helpers.py``); skipped
    where PostgreSQL cannot run, failed under CI."""
    from pg_helpers import running_cluster

    with running_cluster() as cluster:
        yield cluster


@pytest.fixture
def pg_dsn(pg_cluster: Cluster) -> Iterator[str]:
    """A new database of the cluster, upgraded to the referee's schema, dropped after."""
    from referee.pgstore import upgrade

    dsn = pg_cluster.new_database()
    upgrade(dsn)
    yield dsn
    pg_cluster.drop_database(dsn)


@pytest.fixture(params=STORE_KINDS)
def store_kind(request: pytest.FixtureRequest) -> str:
    """Each kind of store in turn: the store's contract holds for every one."""
    kind: str = request.param
    return kind


@pytest.fixture
def open_store(
    store_kind: str, request: pytest.FixtureRequest, tmp_path: Path
) -> Iterator[Callable[[], Store]]:
    """Opens a store of ``store_kind`` over one place: each call a new store object on the same
    data (a restart; the memory store has no other object: the same one), all closed after."""
    from referee.store import MemoryStore, SQLiteStore

    opened: list[Store] = []
    memory = MemoryStore()
    dsn = str(request.getfixturevalue("pg_dsn")) if store_kind == "postgres" else ""

    def new() -> Store:
        store: Store
        if store_kind == "memory":
            store = memory
        elif store_kind == "sqlite":
            store = SQLiteStore(tmp_path / "store.sqlite3")
        else:
            from referee.pgstore import PostgresStore

            store = PostgresStore(dsn)
        opened.append(store)
        return store

    yield new
    for store in opened:
        store.close()
