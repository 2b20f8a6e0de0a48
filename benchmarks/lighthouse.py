"""Lighthouse's accessibility audit of the main pages (issue 13, item 8), a check by a tool
nobody here wrote, beside axe-core in the browser tests. Not part of the test suite: it needs
Node and the `lighthouse` package from the npm registry, which a CI machine may not have.

    npm install --prefix /tmp/lh lighthouse@12
    .venv/bin/python benchmarks/lighthouse.py --lighthouse /tmp/lh/node_modules/.bin/lighthouse

It serves a demo table (`referee serve --demo`) in a temporary directory and audits the home
page, Hera's seat page (her join link, then the page it leads to), the public table and the
judge's hall, printing each page's accessibility score and any failed audit.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

PORT = 8791


def serve(tmp: Path) -> tuple[subprocess.Popen[str], str]:
    referee = Path(sys.executable).with_name("referee")
    proc = subprocess.Popen(
        [
            str(referee),
            "serve",
            "--demo",
            "--host",
            "127.0.0.1",
            "--port",
            str(PORT),
            "--db",
            str(tmp / "lh.db"),
        ],
        cwd=tmp,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    out = ""
    deadline = time.monotonic() + 60
    assert proc.stdout is not None
    while not re.search(r"^Zeus\s+http", out, re.M) and time.monotonic() < deadline:
        out += proc.stdout.readline()
    return proc, out


def audit(lighthouse: str, url: str) -> tuple[float, list[str]]:
    with tempfile.NamedTemporaryFile(suffix=".json") as report:
        subprocess.run(
            [
                lighthouse,
                url,
                "--only-categories=accessibility",
                "--output=json",
                f"--output-path={report.name}",
                "--quiet",
                "--form-factor=mobile",
                "--chrome-flags=--headless=new --no-sandbox --disable-gpu",
            ],
            check=True,
            env={**os.environ, "CHROME_PATH": os.environ.get("CHROME_PATH", "/usr/bin/chromium")},
            timeout=300,
        )
        data = json.loads(Path(report.name).read_text())
    score = float(data["categories"]["accessibility"]["score"] or 0) * 100
    failed = [
        f"{a['id']}: {a['title']}"
        for a in data["audits"].values()
        if a.get("score") is not None and a["score"] < 1 and a.get("scoreDisplayMode") == "binary"
    ]
    return score, failed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lighthouse", default="lighthouse", help="the lighthouse command")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        proc, out = serve(Path(d))
        try:
            local = f"http://127.0.0.1:{PORT}"

            def link(label: str) -> str:
                m = re.search(rf"{label}\s+(http://\S+)", out)
                assert m, f"no {label} link in: {out}"
                return re.sub(r"^http://[^/]+", local, m.group(1))

            hera = link("Hera")
            game = hera.split("/join/")[1].split("/")[0]
            judge = re.search(r"(http://\S+/judge/join/\S+)", out)
            assert judge is not None
            for _ in range(120):  # the links are printed before the server listens
                try:
                    urllib.request.urlopen(local + "/", timeout=30).read()
                    break
                except OSError:
                    time.sleep(0.5)
            pages = {
                "home": local + "/",
                "a join link's page": hera,  # its button takes the seat (issue 31)
                "public table": f"{local}/g/{game}",
                "judge's hall": re.sub(r"^http://[^/]+", local, judge.group(1)),
                "replay": f"{local}/g/{game}/replay",
            }
            for name, url in pages.items():
                score, failed = audit(args.lighthouse, url)
                print(
                    f"{name:14} accessibility {score:5.1f}" + "".join(f"\n    {f}" for f in failed)
                )
        finally:
            proc.terminate()
            proc.wait(timeout=30)


if __name__ == "__main__":
    main()
