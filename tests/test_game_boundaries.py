"""Each game's words live in that game's own packages: no other file of the referee (the
service, the log, the web shell, its schemas, camera and images, the commands, the printables
and vision code, the shell's templates and static files) names a game, its seats, its cards or
its rule ids, in code, comments or docstrings alike. A comment that cites a game's rule in a
shared module is a rule the shared module decides for that game, which is what must not be.

The registry below decides what is whose: per game, the paths of its packages and the words
that are its own. The game registries themselves (the one place a game is installed) are the
only exception, and they hold nothing but the list of installed games.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from engine.herazeus.cards import default_catalogue

ROOT = Path(__file__).resolve().parent.parent
SCANNED = ("engine", "referee", "web", "vision", "printables")
SUFFIXES = (".py", ".html", ".js", ".css")


@dataclass(frozen=True)
class Owner:
    """One game's packages (path prefixes from the project's root) and its words."""

    paths: tuple[str, ...]
    words: re.Pattern[str]


def _words(
    names: list[str], seats: list[str], cards: list[str], rule_ids: list[str]
) -> re.Pattern[str]:
    plain = [re.escape(w) for w in [*names, *seats]]
    exact = [re.escape(c) for c in sorted(cards)]
    return re.compile(
        r"(?i:"
        + "|".join(plain)
        + r")"
        + (r"|\b(?:" + "|".join(exact) + r")\b" if exact else "")
        + r"|\b(?:"
        + "|".join(rule_ids)
        + r")\d+\b"
    )


OWNERS: dict[str, Owner] = {
    "hera-zeus": Owner(
        paths=(
            "engine/herazeus/",
            "referee/herazeus/",
            "web/games/herazeus/",
            "web/templates/herazeus/",
            "web/static/herazeus.css",
            "web/static/camera.js",  # its camera page's script
            "printables/herazeus/",
            "vision/herazeus/",
        ),
        words=_words(
            ["hera", "zeus", "H&Z"], [], sorted(default_catalogue().all_names()), ["D", "HZ-P"]
        ),
    ),
    "minotaur": Owner(
        paths=(
            "engine/minotaur/",
            "referee/minotaur/",
            "web/games/minotaur/",
            "web/templates/minotaur/",
            "web/static/minotaur.css",
            "printables/minotaur/",
            "vision/minotaur/",
        ),
        # No card list ships for Minotaur Lords (the owner types his own): no card names.
        words=_words(["minotaur", "scarab"], ["miron", "vess"], [], ["M", "ML-P"]),
    ),
}

# Where games are installed: each lists the installed games' modules and nothing else.
REGISTRIES = (
    "referee/games.py",
    "web/games/installed.py",
    "printables/games.py",
    "vision/games.py",
)


# Wire formats fixed before a second game existed: the prefixes signatures cover and the seed of
# the test keys. Renaming them would invalidate every signed log, head journal and pinned test
# key there is, so they stay, and only these exact strings are passed over.
WIRE_FORMATS = ("hera-zeus-referee/log/2:", "hera-zeus-referee/heads/1:", "hera-zeus-test-key:")


def _files() -> list[str]:
    out = subprocess.run(
        ["git", "ls-files", *SCANNED], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    return [f for f in out if f.endswith(SUFFIXES) and (ROOT / f).is_file()]


def _foreign_words(files: list[str]) -> list[str]:
    found = []
    for f in files:
        if f in REGISTRIES:
            continue
        lines = (ROOT / f).read_text().splitlines()
        for fixed in WIRE_FORMATS:
            lines = [line.replace(fixed, "") for line in lines]
        for game, owner in OWNERS.items():
            if f.startswith(owner.paths):
                continue
            for n, line in enumerate(lines, 1):
                m = owner.words.search(line)
                if m:
                    found.append(f"{f}:{n}: {game}'s {m.group()!r}: {line.strip()[:70]}")
    return found


def test_the_registry_s_words_find_each_game_s_seats_cards_and_rules() -> None:
    hz, ml = OWNERS["hera-zeus"].words, OWNERS["minotaur"].words
    assert all(hz.search(w) for w in ["Hera", "zeus", "Pegasus", "D20", "HZ-P14", "H&Z"])
    assert all(ml.search(w) for w in ["Minotaur Lords", "miron", "Vess", "M18", "ML-P5"])
    assert not hz.search("Deck D, the judge's seat") and not ml.search("M4TA, a mumble")


def test_the_scan_covers_the_shell_the_schemas_the_camera_and_the_commands() -> None:
    files = set(_files())
    assert {
        "web/schemas.py",
        "web/cli.py",
        "referee/cli.py",
        "printables/cli.py",
        "web/static/app.js",
        "web/templates/seat.html",
        "referee/log.py",
    } <= files


def test_no_file_outside_a_game_s_packages_names_the_game_its_seats_cards_or_rules() -> None:
    assert _foreign_words(_files()) == []


def test_each_registry_only_installs_games() -> None:
    """A registry imports the games' modules and lists them; it decides no game's rule."""
    for f in REGISTRIES:
        path = ROOT / f
        if not path.exists():
            continue
        text = path.read_text()
        assert not re.search(r"\b(?:D|HZ-P|M|ML-P)\d+\b", text), f
