"""A user's details as the users form and the profile screen take them (specification 3 and 5).

Full name, CPF and functions are required; the CPF must be valid; a phone, when given, has at
least 10 digits. Social profile, biography and user name are optional free text.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from bemtevi.domain.contact import normalise_phone
from bemtevi.domain.documents import is_valid_cpf, only_digits
from bemtevi.domain.errors import InvalidDocument, RequiredField
from bemtevi.domain.users import Role

NAME_MIN_LENGTH = 3
PHOTO_MAX_BYTES = 1024 * 1024  # "under 1 MB"

# Who may give which role: super-admin only by a super-admin (specification section 6).
ASSIGNABLE_ROLES = {
    Role.SUPER_ADMIN: frozenset(Role),
    Role.OWNER: frozenset({Role.USER, Role.ADMIN, Role.OWNER}),
    Role.ADMIN: frozenset({Role.USER, Role.ADMIN, Role.OWNER}),
    Role.USER: frozenset(),
    Role.DPO: frozenset(),
}

# The toggles of my-account's marketing, notifications and privacy sections, and their defaults.
PREFERENCE_DEFAULTS: dict[str, bool] = {
    "marketingEmails": False,
    "marketingPartners": False,
    "notifyBatchFinished": True,
    "notifyLowBalance": True,
    "notifySecurity": True,
    "privacyShowProfile": True,
    "privacyUsageAnalytics": False,
}


def _optional(value: str | None) -> str | None:
    text = (value or "").strip()
    return text or None


@dataclass(frozen=True, slots=True)
class UserDetails:
    name: str
    cpf: str
    functions: str
    phone: str | None = None
    social_profile: str | None = None
    biography: str | None = None
    user_name: str | None = None

    def validated(self) -> UserDetails:
        name = " ".join(self.name.split())
        if len(name) < NAME_MIN_LENGTH:
            raise RequiredField("Full name is required (at least 3 characters)", field="name")
        functions = " ".join(self.functions.split())
        if not functions:
            raise RequiredField("Functions are required", field="functions")
        cpf = only_digits(self.cpf)
        if not cpf:
            raise RequiredField("CPF is required", field="cpf")
        if not is_valid_cpf(cpf):
            raise InvalidDocument(field="cpf")
        phone = _optional(self.phone)
        return replace(
            self,
            name=name,
            cpf=cpf,
            functions=functions,
            phone=normalise_phone(phone) if phone else None,
            social_profile=_optional(self.social_profile),
            biography=_optional(self.biography),
            user_name=_optional(self.user_name),
        )


def clean_preferences(values: dict[str, bool]) -> dict[str, bool]:
    """Known toggles only, over the defaults."""
    return {key: bool(values.get(key, default)) for key, default in PREFERENCE_DEFAULTS.items()}
