"""What printing an event's sheets costs (issue 34, Deliver 7): the PDFs of one round.

    .venv/bin/python benchmarks/event_sheets.py [--players 64 256] [--runs 5]

For each ``--players`` count, the sheets the tests print (tests/test_event_sheets.py: a few
accented names, the rest plain, a bye when the count is odd): pairings by name, pairings by
table, the match slips of every table (three a page, two QR codes each) and the standings.
Printed: the median and worst of ``--runs`` runs of each, in milliseconds, and the pages and
size of the PDF. Nothing asserts: the numbers depend on the machine.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import pypdfium2 as pdfium  # type: ignore[import-untyped]
from test_event_sheets import PRINTED, sheet, slips, standings

from printables.event_sheets import (
    match_slips_pdf,
    pairings_by_name_pdf,
    pairings_by_table_pdf,
    standings_pdf,
)


def measure(make: Callable[[], bytes], runs: int) -> tuple[float, float, bytes]:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        pdf = make()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000, max(times) * 1000, pdf


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, nargs="+", default=[64, 256])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    for players in args.players:
        pairings, table_slips, rows = sheet(players), slips(players // 2), standings(players)
        sheets: dict[str, Callable[[], bytes]] = {
            "pairings by name": partial(pairings_by_name_pdf, pairings),
            "pairings by table": partial(pairings_by_table_pdf, pairings),
            f"match slips ({players // 2})": partial(match_slips_pdf, table_slips, PRINTED),
            "standings": partial(standings_pdf, rows),
        }
        for name, make in sheets.items():
            median, worst, pdf = measure(make, args.runs)
            pages = len(pdfium.PdfDocument(pdf))
            print(
                f"{players:4d} players, {name:20s}: {median:7.1f} ms median, {worst:7.1f} ms "
                f"worst; {pages} pages, {len(pdf) / 1024:.0f} kB"
            )


if __name__ == "__main__":
    main()
