"""FastJSONTranscoder writes the library's JSONTranscoder's bytes and reads them back as it does.

Encoding: for any value of the types the library's transcoder takes (and some it refuses), the
fast transcoder gives the same bytes, or raises the same error. Decoding: for any document the
library's transcoder writes, the fast one reads the same objects (types included), or raises the
same error. And the same for every kind of event (and snapshot) the domain saves.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from datetime import UTC, timedelta, timezone
from enum import Enum, IntEnum, StrEnum
from typing import Any
from uuid import UUID, uuid4

import pytest
from eventsourcing.domain import Snapshot
from eventsourcing.persistence import JSONTranscoder
from hypothesis import given, settings
from hypothesis import strategies as st
from support import examples

from bemtevi.commands.application import BemteviApplication
from bemtevi.domain.audit import Actor, AuditedAggregate, acting_as
from bemtevi.domain.brand import Brand
from bemtevi.domain.consultations import Consultation, ConsultationStatus
from bemtevi.domain.credits import CreditAccount, ReasonKind
from bemtevi.domain.groups import Group, GroupType
from bemtevi.domain.query_types import Category
from bemtevi.domain.recovery import PasswordRecovery
from bemtevi.domain.sessions import Session
from bemtevi.domain.users import Role, User, UserStatus
from bemtevi.infra.event_encoding import FastJSONTranscoder

IN_MEMORY = {"PERSISTENCE_MODULE": "eventsourcing.popo"}
LIBRARY = {**IN_MEMORY, "TRANSCODER_TOPIC": "eventsourcing.persistence:JSONTranscoder"}


@pytest.fixture(scope="module")
def apps() -> Iterator[tuple[BemteviApplication, BemteviApplication]]:
    """The application as configured (fast) and with the library's transcoder, same registrations."""
    fast, library = BemteviApplication(env=IN_MEMORY), BemteviApplication(env=LIBRARY)
    yield fast, library
    fast.close()
    library.close()


@pytest.fixture(scope="module")
def transcoders(apps: tuple[BemteviApplication, BemteviApplication]) -> tuple[JSONTranscoder, JSONTranscoder]:
    fast, library = (app.mapper.transcoder for app in apps)
    assert type(fast) is FastJSONTranscoder and type(library) is JSONTranscoder
    assert fast.names.keys() == library.names.keys() == {"uuid_hex", "decimal_str", "datetime_iso", "date_iso", "typed"}
    return fast, library


class Colour(StrEnum):
    RED = "red"
    BLUE = "blue"


class Size(IntEnum):
    SMALL = 1
    HUGE = 2**70


class Unregistered(Enum):
    ONLY = "only"


class Text(str):
    """A str subclass that is not an enum (json writes its characters)."""


def outcome(call: Callable[[], Any]) -> tuple[Any, ...]:
    """What a call gives: its value (by repr, so 1, 1.0 and True differ, and NaN equals NaN) or its error."""
    try:
        return ("value", repr(call()))
    except Exception as e:
        return ("error", type(e), str(e))


offsets = st.timedeltas(min_value=-timedelta(hours=23, minutes=59), max_value=timedelta(hours=23, minutes=59))
time_zones = st.one_of(st.none(), st.just(UTC), offsets.map(timezone), st.timezones())
texts = st.one_of(
    st.text(),
    # Control characters, non-ASCII, line separators, and lone surrogates (which neither can write).
    st.text(st.characters(categories=["Cc", "Cs", "Zl", "Zp", "Lo", "So"])),
    st.sampled_from(["_type_", "_data_", "uuid_hex", ""]),
)
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(min_value=-(2**80), max_value=2**80),  # past 64 bits, which orjson refuses
    st.floats(),  # NaN, infinities, -0.0, subnormals
    texts,
    texts.map(Text),
    st.uuids(),
    st.datetimes(timezones=time_zones),
    st.datetimes(timezones=time_zones).map(lambda t: t.replace(fold=1)),
    st.dates(),
    st.decimals(),
    st.sampled_from([*Colour, *Size]),
    st.just(Unregistered.ONLY),  # no transcoding: both refuse it
    st.just(frozenset({1})),  # nor this
)
values = st.recursive(
    scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=5),
        st.lists(children, max_size=5).map(tuple),
        st.dictionaries(texts, children, max_size=5),
        # Keys that json turns into strings and orjson refuses.
        st.dictionaries(
            st.one_of(st.integers(), st.floats(), st.booleans(), st.none(), texts.map(Text), st.just(Colour.RED)),
            children,
            max_size=3,
        ),
        # Data shaped like a transcoded object (read back as one, or refused, by both).
        st.fixed_dictionaries({"_type_": st.sampled_from(["uuid_hex", "datetime_iso", "nope"]), "_data_": children}),
        st.fixed_dictionaries(
            {"_type_": st.just("uuid_hex"), "_data_": st.one_of(st.uuids().map(lambda u: u.hex), texts)}
        ),
    ),
    max_leaves=25,
)


@settings(max_examples=examples(500), deadline=None)
@given(value=values)
def test_writes_the_librarys_bytes_or_raises_its_error(
    transcoders: tuple[JSONTranscoder, JSONTranscoder], value: Any
) -> None:
    fast, library = transcoders
    assert outcome(lambda: fast.encode(value)) == outcome(lambda: library.encode(value))


@settings(max_examples=examples(500), deadline=None)
@given(value=values)
def test_reads_what_the_library_writes_as_the_library_does(
    transcoders: tuple[JSONTranscoder, JSONTranscoder], value: Any
) -> None:
    fast, library = transcoders
    try:
        data = library.encode(value)
    except Exception:
        return
    assert outcome(lambda: fast.decode(data)) == outcome(lambda: library.decode(data))


@pytest.mark.parametrize(
    "data",
    [
        b'{"n":18446744073709551616,"m":-9223372036854775809}',  # orjson reads these as floats
        b'{"x":NaN,"y":-Infinity,"z":1e400}',
        b'["\\ud800"]',
        b'{"a":1,"a":{"_type_":"uuid_hex","_data_":"0123456789abcdef0123456789abcdef"}}',
        b'{"_type_":"uuid_hex","_data_":"{0123456789abcdef0123456789abcde}"}',
        b'{"_type_":"uuid_hex","_data_":"0123456789abcdef0123456789abcdeg"}',
        b'{"_type_":"uuid_hex","_data_":"0123456789ABCDEF0123456789ABCDEF"}',
        b'{"_type_":"uuid_hex","_data_":"\xd9\xa30123456789abcdef0123456789abcd"}',  # an Arabic-Indic digit
        b'{"_type_":{"_type_":"uuid_hex","_data_":"0123456789abcdef0123456789abcdef"},"_data_":1}',
        b'{"_type_":"date_iso","_data_":"2024-02-30"}',
        b"[1,2",
        b"\xff",
    ],
)
def test_reads_odd_documents_as_the_library_does(
    transcoders: tuple[JSONTranscoder, JSONTranscoder], data: bytes
) -> None:
    fast, library = transcoders
    assert outcome(lambda: fast.decode(data)) == outcome(lambda: library.decode(data))


def test_a_uuid_read_back_is_a_whole_uuid(transcoders: tuple[JSONTranscoder, JSONTranscoder]) -> None:
    fast, _ = transcoders
    original = uuid4()
    read = fast.decode(fast.encode({"id": original}))["id"]
    assert type(read) is UUID and read == original and hash(read) == hash(original)
    assert read.is_safe == original.is_safe and str(read) == str(original) and read.version == 4


# -- the domain's events ----------------------------------------------------------------------------

ids = st.uuids()
optional_ids = st.none() | ids
words = st.text(max_size=30)
optional_words = st.none() | words
counts = st.integers(min_value=0, max_value=10**9)
aware_times = st.datetimes(timezones=st.just(UTC))
flags = st.dictionaries(words, st.booleans(), max_size=4)


def consultation(draw: st.DrawFn) -> list[AuditedAggregate]:
    return [
        Consultation._create(
            Consultation.Recorded,
            id=draw(ids),
            group_id=draw(ids),
            user_id=draw(optional_ids),
            document=draw(words),
            document_type=draw(st.sampled_from(["cpf", "cnpj"])),
            query_type=draw(words),
            category=draw(st.sampled_from(list(Category))).value,
            supplier=draw(words),
            status=draw(st.sampled_from(list(ConsultationStatus))),
            credits=draw(counts),
            channel=draw(words),
            lease_id=None,
            purpose=draw(st.none() | words),
        )
    ]


def credit_accounts(draw: st.DrawFn) -> list[AuditedAggregate]:
    parent = CreditAccount.open(draw(ids), draw(st.sampled_from(list(Category))), None)
    child = CreditAccount.open(draw(ids), parent.category, draw(counts))
    parent.grant_to(child, draw(st.integers(min_value=1, max_value=10**6)))
    block, single = draw(ids), draw(ids)
    child.reserve(block, 1, ReasonKind.BLOCK)
    child.settle_from_block(block, draw(ids), 1)
    parent.reserve(single, draw(st.integers(min_value=1, max_value=10**6)))
    if draw(st.booleans()):
        parent.settle(single, 0)
    else:
        parent.release(single)
    child.change_limit(child.limit)
    return [parent, child]


def group_and_user(draw: st.DrawFn) -> list[AuditedAggregate]:
    group = Group.register(
        name=draw(words),
        group_type=draw(st.sampled_from(list(GroupType))),
        parent_id=draw(optional_ids),
        domain_url=draw(optional_words),
        brand=Brand.from_dict(draw(st.dictionaries(st.sampled_from(["appTitle", "primaryColor"]), words))),
        enabled_query_types=draw(st.lists(words, max_size=4)),
        cnpj=draw(optional_words),
        profile=draw(st.none() | st.dictionaries(words, optional_words | st.lists(words, max_size=2), max_size=4)),
        toggles=draw(st.none() | flags),
    )
    group.change_permissions(draw(st.lists(words, max_size=3)), draw(flags))
    user = User.register(
        group_id=group.id,
        name=draw(words),
        email=draw(words),
        role=draw(st.sampled_from(list(Role))),
        status=draw(st.sampled_from(list(UserStatus))),
        password_hash=draw(words),
    )
    user.change_details(draw(words), draw(words), *(draw(optional_words) for _ in range(5)))
    user.change_preferences(draw(flags))
    user.change_status(UserStatus.INACTIVE)
    return [group, user]


def session_and_recovery(draw: st.DrawFn) -> list[AuditedAggregate]:
    session = Session(user_id=draw(ids), group_id=draw(ids), role=draw(words), expires_at=draw(aware_times))
    session.close(draw(words))
    recovery = PasswordRecovery.request(
        user_id=draw(ids), code_hash=draw(words), unique_key=draw(words), expires_at=draw(aware_times)
    )
    recovery.code_failed()
    recovery.complete()
    return [session, recovery]


@st.composite
def domain_events(draw: st.DrawFn) -> list[Any]:
    with acting_as(Actor(draw(optional_ids), draw(ids))):
        aggregates = draw(st.sampled_from([consultation, credit_accounts, group_and_user, session_and_recovery]))(draw)
    snapshots = [getattr(type(a), "Snapshot", Snapshot).take(a) for a in aggregates]
    return [e for a in aggregates for e in a.collect_events()] + snapshots


@settings(max_examples=examples(300), deadline=None)
@given(events=domain_events())
def test_the_domains_events_are_stored_and_read_as_the_library_does(
    apps: tuple[BemteviApplication, BemteviApplication], events: list[Any]
) -> None:
    fast, library = (app.mapper for app in apps)
    for event in events:
        stored = fast.to_stored_event(event)
        assert stored == library.to_stored_event(event)
        read, read_by_library = fast.to_domain_event(stored), library.to_domain_event(stored)
        assert type(read) is type(read_by_library) is type(event)
        assert repr(vars(read)) == repr(vars(read_by_library))
        assert read == event  # as read by the library: enums come back as their values


def test_float_values_are_written_as_json_writes_them(transcoders: tuple[JSONTranscoder, JSONTranscoder]) -> None:
    fast, library = transcoders
    value = {"f": [1e16, 1e-7, 0.1, -0.0, 5e-324, 1.7976931348623157e308]}
    assert fast.encode(value) == library.encode(value) == b'{"f":[1e+16,1e-07,0.1,-0.0,5e-324,1.7976931348623157e+308]}'
    assert math.isnan(fast.decode(library.encode({"n": math.nan}))["n"])
