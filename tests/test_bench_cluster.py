"""benchmarks/cluster.py still runs: its ``--quick`` form (4 tables on a throwaway PostgreSQL,
served by 1 process and by 2) plays every table, holds every stream, and reports no error.

The figures are not checked (they depend on the machine); that the benchmark works is: every
post acknowledged, every stream held to the end, and every acknowledged action's update heard
on the other seat's stream.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from pg_helpers import require_postgres

ROOT = Path(__file__).resolve().parent.parent

pytestmark = [pytest.mark.postgres, pytest.mark.process]

LINE = re.compile(
    r"^  (?P<name>\d+ process(es)?[^:]*): (?P<tables>\d+) tables, (?P<streams>\d+) streams held "
    r"\| (?P<acked>\d+) actions .* \| errors (?P<errors>\d+) ",
    re.M,
)


def test_the_quick_cluster_benchmark_plays_every_table_without_an_error() -> None:
    require_postgres()
    done = subprocess.run(
        [sys.executable, "benchmarks/cluster.py", "--quick"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=180,
    )
    out = done.stdout + done.stderr
    summary = out.partition("\nsummary:\n")[2]
    found = {m["name"]: m for m in LINE.finditer(summary)}
    assert set(found) == {"1 process", "2 processes (workers)"}, out
    for name, m in found.items():
        assert int(m["tables"]) == 4, (name, out)
        assert int(m["streams"]) == 8, (name, out)  # two seats' streams per table
        assert int(m["acked"]) > 0, (name, out)
        assert int(m["errors"]) == 0, (name, out)
    assert done.returncode == 0, out
