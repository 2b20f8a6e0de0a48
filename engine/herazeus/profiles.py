"""Rule profiles and house-rule switches (RULES.md, "Profiles").

A :class:`Ruleset` is what a game is refereed under: a profile, the switches on top of it, and
the card catalogue. It is immutable and shared by every state of a game.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace

from engine.herazeus.cards import Catalogue, Player, default_catalogue
from engine.herazeus.errors import NotationError
from engine.say import Say


class Profile(enum.Enum):
    RIO_GRANDE = "rio-grande"  # EN as printed, FAQ-RB where EN is silent (default)
    KOSMOS = "kosmos"  # own-figure removal by Pegasus (D4), Hera starts (D19)
    TRANSLATIONS = "translations"  # Pythia always loses when challenged (D3)


class PandoraScope(enum.Enum):  # D1
    BOTH = "both"
    OWNER = "owner"


class PythiaDefends(enum.Enum):  # D3
    NORMAL = "normal"
    ALWAYS_LOSES = "always_loses"


class OwnFigureRemoval(enum.Enum):  # D4
    ACTION = "action"
    PEGASUS = "pegasus"
    BOTH = "both"


class PegasusBesideOwnFigure(enum.Enum):  # D5
    ALLOWED = "allowed"
    FORBIDDEN = "forbidden"


@dataclass(frozen=True, slots=True)
class Switches:
    """House-rule switches; each names the decision it changes."""

    pandora_scope: PandoraScope = PandoraScope.BOTH
    pythia_defends: PythiaDefends = PythiaDefends.NORMAL
    own_figure_removal: OwnFigureRemoval = OwnFigureRemoval.ACTION
    pegasus_beside_own_figure: PegasusBesideOwnFigure = PegasusBesideOwnFigure.ALLOWED

    def to_json(self) -> dict[str, str]:
        return {f.name: getattr(self, f.name).value for f in fields(self)}


SWITCH_TYPES: dict[str, type[enum.Enum]] = {
    "pandora_scope": PandoraScope,
    "pythia_defends": PythiaDefends,
    "own_figure_removal": OwnFigureRemoval,
    "pegasus_beside_own_figure": PegasusBesideOwnFigure,
}

SWITCH_DECISION = {
    "pandora_scope": "D1",
    "pythia_defends": "D3",
    "own_figure_removal": "D4",
    "pegasus_beside_own_figure": "D5",
}

PROFILE_DEFAULTS: dict[Profile, Switches] = {
    Profile.RIO_GRANDE: Switches(),
    Profile.KOSMOS: Switches(own_figure_removal=OwnFigureRemoval.PEGASUS),
    Profile.TRANSLATIONS: Switches(pythia_defends=PythiaDefends.ALWAYS_LOSES),
}


def parse_profile(text: object, where: str = "profile") -> Profile:
    """Raises NotationError for anything but a known profile name."""
    for p in Profile:
        if p.value == text:
            return p
    names = ", ".join(p.value for p in Profile)
    raise NotationError(
        Say("unknown profile %(value)s (known: %(known)s)", value=repr(text), known=names), where
    )


def parse_switches(raw: object, where: str = "switches") -> dict[str, enum.Enum]:
    """Checked switch overrides, by name. Raises NotationError for unknown names or values."""
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        raise NotationError(Say("must be an object of switch names to values"), where)
    out: dict[str, enum.Enum] = {}
    for name, value in raw.items():
        typ = SWITCH_TYPES.get(name)
        if typ is None:
            raise NotationError(
                Say(
                    "unknown switch %(value)s (known: %(known)s)",
                    value=repr(name),
                    known=list(SWITCH_TYPES),
                ),
                where,
            )
        try:
            out[name] = typ(value)
        except ValueError:
            allowed = " | ".join(str(m.value) for m in typ)
            raise NotationError(
                Say(
                    "%(switch)s must be %(allowed)s, not %(value)s",
                    switch=name,
                    allowed=allowed,
                    value=repr(value),
                ),
                where,
            ) from None
    return out


@dataclass(frozen=True, slots=True)
class Ruleset:
    """Profile + switches + catalogue: everything a game is refereed under."""

    profile: Profile = Profile.RIO_GRANDE
    switches: Switches = field(default_factory=Switches)
    catalogue: Catalogue = field(default_factory=default_catalogue)
    overrides: tuple[tuple[str, str], ...] = ()  # the switches set explicitly, for display

    @classmethod
    def build(
        cls,
        profile: Profile = Profile.RIO_GRANDE,
        overrides: Mapping[str, enum.Enum] | None = None,
        catalogue: Catalogue | None = None,
    ) -> Ruleset:
        """The profile's defaults with ``overrides`` on top."""
        sw: Switches = replace(PROFILE_DEFAULTS[profile], **dict(overrides or {}))  # type: ignore[arg-type]
        return cls(
            profile=profile,
            switches=sw,
            catalogue=catalogue or default_catalogue(),
            overrides=tuple(sorted((k, v.value) for k, v in (overrides or {}).items())),
        )

    def under(self, profile: Profile) -> Ruleset:
        """The same explicit switches and catalogue under another profile."""
        ov = {k: SWITCH_TYPES[k](v) for k, v in self.overrides}
        return Ruleset.build(profile, ov, self.catalogue)

    def fixed_starting_player(self) -> Player | None:
        """D19: under ``kosmos`` Hera always starts; otherwise it is a setup choice."""
        return Player.HERA if self.profile is Profile.KOSMOS else None
