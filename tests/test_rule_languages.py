"""`referee rule --lang {en,it,fr,de}`: the same ruling file is said in four languages; its
human words (the ruling, the rules' titles and texts, the citations, the refusals) follow the
language, its machine fields (ids, codes, notation, outcome, position) do not; a citation names
the reader's own edition first, or says plainly that only another edition has the passage; both
rule catalogues are translated whole (issue 36)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from engine.herazeus.rulebook import RULES as HZ_RULES
from engine.herazeus.rulebook import SOURCES
from engine.minotaur.rulebook import RULES as ML_RULES
from referee.herazeus.ruling import OWN_SOURCE as HZ_OWN
from referee.language import say
from referee.minotaur.ruling import OWN_SOURCE as ML_OWN
from referee.rulings import sources_said
from web.cli import main

LANGS = ("it", "fr", "de")
MINOTAUR_FILE = Path(__file__).parent / "data/minotaur/rulings/27-building-enters-cursed.json"
# words only a ruling in that language has (the heading, the rules' list, a rule's title)
WORDS = {
    "it": ("Decisione con il profilo", "Regole applicate:", "La portata di Pandora"),
    "fr": ("Décision selon le profil", "Règles appliquées :", "La portée de Pandore"),
    "de": ("Entscheidung nach dem Profil", "Angewandte Regeln:", "Pandoras Reichweite"),
}
MINOTAUR_WORDS = {"it": "Edifici", "fr": "Bâtiments", "de": "Gebäude"}
HUMAN = {"ruling", "citations"}  # the result object's fields said in the reader's language
# titles that are card names: an edition may print them as in English
NAMES = {"Sirens", "Hades", "Persephone", "Dionysus"}


def rule(path: Path, capsys: pytest.CaptureFixture[str], *args: str) -> str:
    assert main(["rule", *args, str(path)]) == 0
    out = capsys.readouterr()
    assert out.err == ""
    return out.out


def rule_json(path: Path, capsys: pytest.CaptureFixture[str], lang: str) -> dict[str, Any]:
    result: dict[str, Any] = json.loads(rule(path, capsys, "--json", "--lang", lang))
    return result


@pytest.mark.parametrize("lang", LANGS)
def test_a_ruling_read_aloud_is_in_the_language_asked(
    examples_dir: Path, capsys: pytest.CaptureFixture[str], lang: str
) -> None:
    path = examples_dir / "pegasus-against-pandora.json"
    text = rule(path, capsys, "--lang", lang)
    english = rule(path, capsys)
    for word in WORDS[lang]:
        assert word in text
        assert word not in english
    assert "Rules applied:" not in text
    # codes and notation as they are: the profile, the rule ids, the action, the outcome code
    for same in ("rio-grande", "D5", "D1", "pegasus field 2", "pandora_own_hostage"):
        assert same in text


@pytest.mark.parametrize("lang", LANGS)
def test_the_result_object_changes_only_its_human_fields(
    examples_dir: Path, capsys: pytest.CaptureFixture[str], lang: str
) -> None:
    path = examples_dir / "pegasus-against-pandora.json"
    said, english = rule_json(path, capsys, lang), rule_json(path, capsys, "en")
    assert {k: v for k, v in said.items() if k not in HUMAN} == {
        k: v for k, v in english.items() if k not in HUMAN
    }
    assert said["citations"].keys() == english["citations"].keys()
    assert said["ruling"] != english["ruling"]
    assert all(said["citations"][r] != english["citations"][r] for r in said["citations"])
    assert WORDS[lang][2] in said["citations"]["D1"]


def test_english_is_the_default_and_says_what_it_said_before(
    examples_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = examples_dir / "pegasus-against-pandora.json"
    assert rule(path, capsys, "--lang", "en") == rule(path, capsys)
    result = rule_json(path, capsys, "en")
    assert result["citations"]["D1"] == "D1 Pandora's reach (EN, IT)"
    assert result["ruling"].endswith(
        "Hera wins: the challenger of Pandora lost his own hostage [D1]."
    )


def test_each_citation_names_the_readers_edition_or_says_it_lacks_the_passage(
    examples_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = (
        examples_dir / "pegasus-against-pandora.json"
    )  # cites D5 (EN, IT, FR, FAQ-RB), D1 (EN, IT)
    it, fr, de = (rule_json(path, capsys, lang)["citations"] for lang in LANGS)
    assert it["D1"].endswith("(IT, EN)")
    assert it["D5"].endswith("(IT, EN, FR, FAQ-RB)")
    assert fr["D5"].endswith("(FR, EN, IT, FAQ-RB)")
    assert fr["D1"].endswith("(EN, IT : l'édition française n'a pas ce passage)")
    # the German edition is not among the sources: said so (FAQ-DE, the German FAQ, comes first
    # where a rule has it)
    assert de["D1"].endswith("(EN, IT: die deutsche Ausgabe ist nicht unter den Quellen)")


def test_sources_said_puts_the_readers_edition_first_or_says_which_edition_has_it() -> None:
    assert sources_said(("EN", "IT"), "en", HZ_OWN) == "EN, IT"
    assert sources_said(("EN", "FAQ-DE", "IT"), "de", HZ_OWN) == "FAQ-DE, EN, IT"
    only_english = ("EN", "FAQ-RB")
    assert sources_said(only_english, "it", HZ_OWN) == (
        "EN, FAQ-RB: solo nell'edizione inglese; quella italiana non ce l'ha"
    )
    assert sources_said(only_english, "fr", HZ_OWN) == (
        "EN, FAQ-RB : seulement dans l'édition anglaise ; l'édition française ne l'a pas"
    )
    assert sources_said(only_english, "de", HZ_OWN) == (
        "EN, FAQ-RB: nur in der englischen Ausgabe; die deutsche Ausgabe ist nicht unter den "
        "Quellen"
    )
    assert sources_said(("PROJECT",), "it", HZ_OWN) == (
        "PROJECT: in nessuna edizione del regolamento"
    )
    # Minotaur Lords: its only source is the Italian rulebook
    assert sources_said(("IT",), "it", ML_OWN) == "IT"
    assert sources_said(("IT",), "fr", ML_OWN) == (
        "IT : seulement dans l'édition italienne ; l'édition française ne figure pas parmi "
        "les sources"
    )
    assert sources_said(("IT",), "de", ML_OWN).startswith("IT: nur in der italienischen Ausgabe")


@pytest.mark.parametrize("lang", LANGS)
def test_a_minotaur_ruling_says_its_rules_in_the_language_and_cites_the_italian_edition(
    capsys: pytest.CaptureFixture[str], lang: str
) -> None:
    said, english = rule_json(MINOTAUR_FILE, capsys, lang), rule_json(MINOTAUR_FILE, capsys, "en")
    assert {k: v for k, v in said.items() if k not in HUMAN} == {
        k: v for k, v in english.items() if k not in HUMAN
    }
    m7 = said["citations"]["M7"]
    assert m7.startswith(f"M7 {MINOTAUR_WORDS[lang]}: ")
    assert m7 != english["citations"]["M7"]
    if lang == "it":
        assert m7.endswith("(IT)")
    else:  # an edition other than the reader's: the Italian one's passage, said so
        assert m7.endswith(")") and {"fr": "italienne", "de": "italienischen"}[lang] in m7
    text = rule(MINOTAUR_FILE, capsys, "--lang", lang)
    assert MINOTAUR_WORDS[lang] in text and "Rules:" not in text


@pytest.mark.parametrize("lang", LANGS)
def test_every_rule_of_both_catalogues_is_translated(lang: str) -> None:
    texts: list[tuple[str, str]] = []
    for r in HZ_RULES.values():
        texts += [(r.id, r.title), (r.id, r.text)]
        texts += [(f"{r.id} {p.value}", t) for p, t in r.profiles.items()]
    for m in ML_RULES.values():
        texts += [(m.id, m.title), (m.id, m.text)]
    texts += [(key, text) for key, text in SOURCES.items()]
    assert len(texts) > 150
    for where, english in texts:
        words = say(english, lang)
        assert words.strip(), where
        assert words != english or english in NAMES, f"{where} is English in {lang}: {english!r}"


@pytest.mark.parametrize("lang", LANGS)
def test_a_refusal_and_a_missing_fact_are_said_in_the_language(
    examples_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], lang: str
) -> None:
    raw = json.loads((examples_dir / "pegasus-against-pandora.json").read_text("utf-8"))
    raw["turn"]["first"] = True  # no challenge on one's own first turn (D6)
    raw["actions"] = [{"do": "challenge", "column": 1}]
    refused = tmp_path / "first.json"
    refused.write_text(json.dumps(raw), "utf-8")
    result, english = rule_json(refused, capsys, lang), rule_json(refused, capsys, "en")
    assert (result["legal"], result["failed_at"], result["rules"]) == (False, 0, english["rules"])
    assert result["ruling"].startswith(
        {"it": "L'azione 1", "fr": "L'action 1", "de": "Aktion 1"}[lang]
    )
    raw["turn"]["first"] = False
    raw["hera"]["field"][0] = ["?"]  # a challenge against an unknown card, without its reveal
    missing = tmp_path / "missing.json"
    missing.write_text(json.dumps(raw), "utf-8")
    assert main(["rule", "--lang", lang, str(missing)]) == 2
    err = capsys.readouterr().err
    assert {
        "it": "senza questo dato",
        "fr": "impossible de décider",
        "de": "keine Entscheidung möglich",
    }[lang] in err
    assert "reveal" in err  # the missing field's name is notation


@pytest.mark.parametrize("bad", ["xx", "EN", "italiano", ""])
def test_an_unknown_language_is_refused_naming_it_and_the_languages(
    examples_dir: Path, capsys: pytest.CaptureFixture[str], bad: str
) -> None:
    assert main(["rule", "--lang", bad, str(examples_dir / "pegasus-against-pandora.json")]) == 2
    out = capsys.readouterr()
    assert out.out == ""
    assert (
        out.err == f"referee: --lang: unknown language {bad!r}: the languages are en, it, fr, de\n"
    )
