"""The audit log's words have one source (bemtevi/projections/audit_words.json): every kind of event the log can
show has a name and a sentence in both languages, the web app's generated copy is that file, and the server says
each row as the screen does (the same cases run in the web app's vitest against its show.ts)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support import examples

from bemtevi.domain.query_types import SEEDED
from bemtevi.projections.audit import audit_event_kinds
from bemtevi.projections.audit_sentences import (
    LANGUAGES,
    WORDS,
    Language,
    changes_text,
    count,
    event_name,
    number,
    sentence,
    show_value,
    type_name,
)

ROOT = Path(__file__).resolve().parents[2]
WORDS_FILE = ROOT / "bemtevi" / "projections" / "audit_words.json"
GENERATED_WORDS = ROOT / "webapp" / "src" / "store" / "generated" / "auditWords.ts"
CASES = json.loads((ROOT / "webapp" / "src" / "features" / "audit" / "sentenceCases.json").read_text("utf-8"))
PLACEHOLDER = re.compile(r"\{\{\s*(\w+)\s*\}\}")


def placeholders(text: str) -> list[str]:
    return sorted(PLACEHOLDER.findall(text))


def keys(node: Any, prefix: str = "") -> set[str]:
    if not isinstance(node, dict):
        return {prefix}
    return set().union(*(keys(value, f"{prefix}.{key}") for key, value in node.items()))


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_kind_has_a_name_and_a_sentence_in_each_language(lang: Language) -> None:
    words = WORDS[lang]
    missing = []
    for kind in audit_event_kinds():
        aggregate, event = kind.split(".")
        if aggregate not in words["types"]:
            missing.append(f"types.{aggregate}")
        if event not in words["events"].get(aggregate, {}):
            missing.append(f"events.{kind}")
        if event not in words["sentences"].get(aggregate, {}):
            missing.append(f"sentences.{kind}")
    assert missing == []


def test_both_languages_have_the_same_words_and_say_the_same_things() -> None:
    pt, en = WORDS["pt-BR"], WORDS["en-US"]
    assert keys(pt) == keys(en)
    for aggregate, events in pt["sentences"].items():
        for event, text in events.items():
            assert placeholders(en["sentences"][aggregate][event]) == placeholders(text), f"{aggregate}.{event}"
    for kind, text in pt["counts"].items():
        assert placeholders(en["counts"][kind]) == placeholders(text), kind


def test_the_web_apps_generated_copy_is_the_servers_file() -> None:
    """`npm run codegen` writes the copy the screen reads; a change to the words without it fails here."""
    text = GENERATED_WORDS.read_text(encoding="utf-8")
    copied = re.search(r"AUDIT_WORDS = (\{.*\})\s*$", text, re.DOTALL)
    assert copied, text[:200]
    assert json.loads(copied.group(1)) == json.loads(WORDS_FILE.read_text(encoding="utf-8"))


@pytest.mark.parametrize(
    "case", CASES["sentences"], ids=lambda c: f"{c['row']['aggregateType']}.{c['row']['eventType']}"
)
@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_row_reads_as_the_screen_says_it(case: dict[str, Any], lang: Language) -> None:
    assert sentence(case["row"], lang) == case[lang]


@pytest.mark.parametrize("case", CASES["values"], ids=lambda c: f"{c[0]}={c[1]!r}")
def test_a_value_reads_as_the_screen_shows_it(case: list[Any]) -> None:
    field, value, pt, en = case
    assert (show_value(field, value, "pt-BR"), show_value(field, value, "en-US")) == (pt, en)


@pytest.mark.parametrize("case", CASES["changes"], ids=lambda c: f"{c[0]}.{c[1]['field']}")
def test_a_change_reads_with_the_fields_label(case: list[Any]) -> None:
    aggregate, change, pt, en = case
    row = {"aggregateType": aggregate, "changes": [change]}
    assert (changes_text(row, "pt-BR"), changes_text(row, "en-US")) == (pt, en)


details = st.dictionaries(
    st.sampled_from(["records", "found", "charged", "amount", "status", "role", "channel", "layout_id", "subject"]),
    st.one_of(st.none(), st.integers(-(10**7), 10**7).map(str), st.text(max_size=12)),
    max_size=5,
)


@settings(max_examples=examples(200), deadline=None)
@given(kind=st.sampled_from(audit_event_kinds()), lang=st.sampled_from(LANGUAGES), details=details)
def test_any_row_of_any_kind_reads_as_a_sentence_not_as_internals(
    kind: str, lang: Language, details: dict[str, str | None]
) -> None:
    aggregate, event = kind.split(".")
    row: dict[str, Any] = {"aggregateType": aggregate, "eventType": event, "actorName": "Maria", "details": details}
    row |= {"targetType": "user", "targetName": "Alvo"}
    said = sentence(row, lang)
    assert "{{" not in said and kind not in said and said.strip()
    assert event_name(aggregate, event, lang) != f"{type_name(aggregate, lang)} · {event}"


@given(n=st.integers(0, 10**9), lang=st.sampled_from(LANGUAGES))
def test_a_count_always_has_its_words(n: int, lang: Language) -> None:
    said = count("records", n, lang)
    assert said and "{{" not in said
    assert (number(n, lang) in said) if n else (said in ("nenhum registro", "no records"))


def test_a_seeded_query_type_is_named_and_described_by_its_key_in_each_language() -> None:
    """The built-in types are stored with their Portuguese names; every screen (through the web app's generated
    copy) and the audit log name them by key from the words file, one English name each."""
    words = json.loads(WORDS_FILE.read_text(encoding="utf-8"))
    for seeded in SEEDED:
        assert words["pt-BR"]["values"][seeded.key] == seeded.name
        assert words["pt-BR"]["seededDescriptions"][seeded.key] == seeded.description
        assert words["en-US"]["seededDescriptions"][seeded.key] not in ("", seeded.description)
    english = {q.key: words["en-US"]["values"][q.key] for q in SEEDED}
    assert english == {"cpf-complete": "Complete person (CPF)", "cnpj-complete": "Complete company (CNPJ)"}
