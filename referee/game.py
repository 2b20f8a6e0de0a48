"""The game interface: what a game module gives the referee service.

The service (log, store, seats, questions, corrections, exports) knows no game's rules. A game
module knows its cards, rule profiles, position notation, legality, the projection of the truth
for each seat, which hidden values each seat may state, the questions it asks, its rulings and
their citations. Each game is a module in its own package, registered in
:mod:`referee.games`, and nothing else.

States, actions, rules and patches are the game's own values: the service only stores them,
passes them back and prints what the game says of them. The interface is generic in them
(:class:`Game`), so mypy checks each game module against its own types (each module states
them where it makes its instance), and what a game returns to the service is typed: a seat's
view is the game's own :class:`referee.models.Board` subclass, a ruling's result the game's own
value (:class:`referee.models.Ruling`). The game speaks to the service in the few
exceptions below, each carrying the deciding rule id:

::

    RuleError
    ├── Illegal      the action is not legal (``rule``, ``reason``); ``contradiction`` when it
    │                contradicts what is recorded of a card (the judge settles it, under the
    │                game's ``contradiction_rule``)
    ├── Missing      an identity or a choice is missing (``needs``: dotted path into the
    │                action; ``asked``: the seats that may state it, empty for the actor)
    ├── Malformed    the input is not a well-formed action, card, observation or option
    └── NotYours     this seat may not state or do this (a player acting for the other)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeAlias, TypeVar

from engine.outcome import Outcome as BaseOutcome
from referee.models import Board, Caution, Ruling

S = TypeVar("S")  # a game's state
A = TypeVar("A")  # a game's action
V = TypeVar("V", bound=Board, covariant=True)  # a game's board view, for one seat
Rs = TypeVar("Rs")  # the rules a game runs under (read from its create record)
P = TypeVar("P")  # a patch: an unknown value identified by an observation
X = TypeVar("X")  # the game's own result of a ruling


class RuleError(Exception):
    """Base of what a game module raises to the service."""

    def __init__(self, reason: str, rule: str | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.rule = rule


class Illegal(RuleError):
    """Not legal here. ``contradiction``: a statement that contradicts the record (a judge
    settles it); any other illegal action is simply refused."""

    def __init__(self, reason: str, rule: str | None = None, contradiction: bool = False):
        super().__init__(reason, rule)
        self.contradiction = contradiction


class Missing(RuleError):
    """An identity or a choice is missing: ``needs`` (a dotted path into the action's JSON)
    stated by one of ``asked`` (empty: the actor)."""

    def __init__(self, reason: str, rule: str, needs: str, asked: Sequence[str] = ()) -> None:
        super().__init__(reason, rule)
        self.needs = needs
        self.asked = tuple(asked)


class Malformed(RuleError):
    """Input that is not a well-formed action, card, observation or option."""


class NotYours(RuleError):
    """This seat may not do or state this."""


if TYPE_CHECKING:
    Outcome: TypeAlias = BaseOutcome[S, Mapping[str, Any]]
else:
    Outcome = BaseOutcome
"""What applying an action gave (:class:`engine.outcome.Outcome`, the one outcome class of every
engine and of the service): the new state, its events as JSON (each with ``public`` false and a
``player`` when only that player may see it), the rules it applied and notes."""


@dataclass(frozen=True)
class Setup:
    """A new game's create body (the game's own choices) and the actions recorded with it
    (each as ``(actor, action JSON)``, written from the judge's seat)."""

    body: dict[str, Any]
    first: tuple[tuple[str, Mapping[str, Any]], ...] = ()


@dataclass(frozen=True)
class Observed(Generic[P]):
    """An observation as the game judged it: the record's body (``identifies`` and
    ``irregularity`` always present, so every seat's cut has the same shape) and the patch
    that identifies an unknown card, if it does."""

    body: dict[str, Any]
    patch: P | None = None


@dataclass(frozen=True)
class Option:
    """One of a game's create options (a field of the API's create body beside ``players``).
    ``kind``: ``"text"`` (a string of at most ``max_len``), ``"choice"`` (one of ``choices``),
    ``"switches"`` (an object of switch names to values: ``switches``), ``"object"`` (any JSON
    object the game reads). ``checked``: the API refuses a choice not listed (400); else the
    game refuses it (422)."""

    name: str
    kind: str
    description: str
    choices: tuple[str, ...] = ()
    checked: bool = True
    switches: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    max_len: int = 40


@dataclass(frozen=True)
class Summary:
    """A table at a glance (the judge's overview)."""

    phase: str
    turn: dict[str, Any] = field(default_factory=dict)
    winner: str | None = None
    reason: str | None = None


class Game(Protocol[S, A, V, Rs, P, X]):
    """A two-player card game the referee can run, generic in its own values: ``S`` its
    state, ``A`` its action, ``V`` its board view (a :class:`referee.models.Board`), ``Rs``
    its rules, ``P`` its patch and ``X`` its rulings' result. Every method is pure.

    The registry (:mod:`referee.games`) holds games of different types; the service reads a
    game from it as ``Game[Any, ...]`` and passes back only what that game gave it."""

    name: str  # the id in a create record
    title: str  # for people
    players: tuple[str, ...]  # the player seats, in seat order
    hold_rule: str  # the rule id of "an open question holds the game"
    contradiction_rule: str  # the rule id of "a statement contradicts the record" (judge)
    legacy_rules: str  # the rules a create record naming none was made under

    @property
    def board_type(self) -> type[V]:
        """The type of the game's board view (:meth:`view`): the API's schema of a seat's
        view is generated from it (:mod:`web.openapi`)."""
        ...

    @property
    def result_type(self) -> type[X]:
        """The type of a ruling's ``result`` (:meth:`ruling`), for the API's schema."""
        ...

    # ---- a game's rules --------------------------------------------------------------------

    def setup(self, options: Mapping[str, Any], players: Mapping[str, str]) -> Setup:
        """The create body for a new game: ``options`` are the game's own choices (its
        :attr:`options`: rule profiles, switches, who starts, a card list), already checked
        for their JSON types; ``players`` the players' names by seat. Raises Malformed or
        Illegal (with the rule)."""
        ...

    def rules(self, create: Mapping[str, Any]) -> Rs:
        """The rules a create body names. Raises Malformed."""
        ...

    def rules_version(self, create: Mapping[str, Any]) -> str:
        """The version of the rules a game runs under: ``MODULE-VERSION+DIGEST``, the module's
        version and a digest of its catalogue and profile (the service pins it in the create
        record)."""
        ...

    def new_state(self, rules: Rs) -> S: ...

    def card_names(self, rules: Rs) -> dict[str, list[str]]:
        """Each player's deck: the printed card names (public; for the pickers)."""
        ...

    # ---- actions -----------------------------------------------------------------------------

    def parse_action(self, raw: Any, where: str) -> A:
        """An action from its JSON. Raises Malformed naming ``where``."""
        ...

    def action_json(self, action: A) -> dict[str, Any]: ...

    def check(self, state: S, action: A) -> None:
        """Raises Illegal, Missing or Malformed when ``action`` cannot be applied."""
        ...

    def apply(self, state: S, action: A, checked: bool = True, asking: bool = False) -> Outcome[S]:
        """Checks and applies. Raises as :meth:`check`.

        ``asking=True`` (acting at a table) raises Missing for a choice the rules give a
        player that the action leaves open, once it arises (a discard order, say); without
        it the game's default choice applies (rulings, the fold).

        ``checked=False`` only carries the action out, without its legality checks: for an
        action known to be legal on ``state`` (read back from a verified log, checked when
        it was accepted). A legal action gives exactly the checked outcome; an illegal one an
        unspecified outcome or error. The fold uses it; acting and rulings never do."""
        ...

    def reason_text(self, reason: str | None) -> str:
        """Why a game ended (its ``summary``'s ``reason``), in words with its rule."""
        ...

    def take_back_refusal(self, action: Mapping[str, Any]) -> str | None:
        """Why an action (its JSON) may not be taken back by its player with his opponent's
        consent (it turned up a card hidden from him, say), or None (its ``takeback_rule``)."""
        ...

    def actor(self, state: S, action: A, seat: str) -> str:
        """The player an action is for, as submitted from ``seat``. Raises NotYours."""
        ...

    def refuse_statement(self, state: S, action: A, seat: str) -> Illegal | None:
        """Why player ``seat`` may not submit ``action`` as stated (it names a value hidden
        from him, or one that is chosen later), decided from the action's form and what the
        seat sees, never from the hidden value itself; None when he may."""
        ...

    def asked(self, missing: Missing, actor: str) -> tuple[str, ...]:
        """Who states the missing value: a card's holder, never his opponent."""
        ...

    def shown_while_asked(self, action: Mapping[str, Any]) -> dict[str, Any]:
        """What both sides of an open question saw at the table (parts of the waiting
        action's JSON), shown with the question to the seats concerned."""
        ...

    # ---- the guardian (issue 37) ------------------------------------------------------------

    def guard(self, seen: S, action: A, seat: str) -> tuple[Caution, ...]:
        """The guardian: what player ``seat`` should know before he confirms ``action``
        (a move that loses the game at once, a rule that will cost him a card), each with its
        rule, its sentence and the legal actions that avoid it. ``seen`` is the position as
        the seat sees it (:meth:`project`), the only position the game is given: a warning
        never depends on a card hidden from him. Empty when there is nothing to say, when
        the outcome depends on what he cannot see, or for an action that is not his or not
        legal (the service refuses it on submission)."""
        ...

    # ---- seats -------------------------------------------------------------------------------

    def project(self, state: S, seat: str) -> S:
        """The state as ``seat`` knows it: every value hidden from him unknown."""
        ...

    def view(self, state: S, seat: str) -> V:
        """The position as ``seat`` may see it: the game's board view, cut for the seat."""
        ...

    def legal(self, state: S, seat: str) -> list[str] | None:
        """The actions ``seat`` may take now, as text; None when it is not his to act."""
        ...

    def in_play(self, state: S) -> bool:
        """Past setup and not over (the ruling tool poses actions only then)."""
        ...

    def summary(self, state: S) -> Summary: ...

    def action_hidden(self, action: Mapping[str, Any], actor: str, seat: str) -> set[str]:
        """The paths (relative to the action) hidden from ``seat`` in a recorded action."""
        ...

    def event_hidden(self, event: Mapping[str, Any], seat: str) -> set[str]:
        """The keys of one recorded event hidden from ``seat``."""
        ...

    # ---- what people saw -------------------------------------------------------------------

    def observe(self, state: S, seat: str, obs: Mapping[str, Any]) -> Observed[P]:
        """Judges an observation (a card seen in a zone) from ``seat``. A refusal depends only
        on what ``seat`` may see (its projection); what only the truth contradicts is an
        ``irregularity`` in the body, which every seat but the judge's reads sealed. Raises
        Malformed, NotYours, or Illegal for what could not be there."""
        ...

    def patch(self, rules: Rs, body: Mapping[str, Any]) -> P:
        """The patch an identifying observation's body carries (read under ``rules`` alone,
        so a log can be read before it is replayed). Raises Malformed."""
        ...

    def apply_patch(self, state: S, patch: P) -> S:
        """The state with one unknown value identified. Raises Illegal."""
        ...

    # ---- text (the command line: ``referee replay``) ----------------------------------------

    def action_text(self, action: Mapping[str, Any]) -> str:
        """A recorded action (its JSON) in the game's notation. Raises Malformed."""
        ...

    def event_text(self, event: Mapping[str, Any]) -> str | None:
        """One sentence for a recorded event (None: nothing worth saying); a sealed value
        names nothing."""
        ...

    def board_text(self, state: S) -> str:
        """The whole table as a terminal board (for the judge: every card)."""
        ...

    def position_json(self, state: S) -> dict[str, Any]:
        """The whole position in the game's JSON notation."""
        ...

    # ---- rulings ---------------------------------------------------------------------------

    def ruling(self, state: S, action: A, lang: str = "en") -> Ruling[X]:
        """The ruling on ``action`` posed on ``state``: ``legal``, ``rules``, ``ruling``
        (text) and ``citations`` in ``lang`` (issue 36), ``other_profiles`` and the game's own
        ``result``. Raises Missing or Malformed."""
        ...

    # ---- what a game decides for the shared service -----------------------------------------
    # The service, the web shell, the log and the commands name no game: each of these is the
    # game's own answer to a question they ask of every game.

    options: tuple[Option, ...]  # its create options (the API's create body, beside players)
    possessives: Mapping[str, str]  # a player seat's possessive where it is not "his"
    takeback_rule: str  # the rule id of "a player takes back his own last action"
    answered_rule: str  # the rule id of "an action waiting for an answer stands"
    undo_rule: str  # the rule id of "a correction must change the game"
    zones: tuple[str, ...]  # the zones an observation may name ("hand", ...)
    needs_phrases: Mapping[str, str]  # a question's words by its field path's head; "{whose}"
    # is the seat the path names (``referee.words.needs_words``)
    ruling_keys: frozenset[str]  # keys only this game's ruling files have (see rule_on_file)

    def rule_on_file(self, text: str, name: str, as_json: bool, lang: str = "en") -> str:
        """``referee rule`` on a ruling file of this game (its whole text, from ``name``): the
        result object (JSON, ``as_json``) or its text for a judge, its human words in ``lang``
        (the machine fields the same in every language). Raises
        :class:`engine.errors.EngineError` (NotationError for a malformed file,
        NeedsInputError when a choice or an identity is missing)."""
        ...


AnyGame = Game[Any, Any, Any, Any, Any, Any]
"""A game read from the registry: its values are its own, so the service holds them as they
come and hands them back to the same game (the one place their types are not known)."""
