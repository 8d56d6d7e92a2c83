"""User: a person who signs in for one group."""

from __future__ import annotations

import secrets
from enum import StrEnum
from uuid import UUID

from eventsourcing.domain import event

from bemtevi.domain.audit import AuditedAggregate


class Role(StrEnum):
    USER = "user"
    ADMIN = "admin"
    OWNER = "owner"
    SUPER_ADMIN = "super-admin"
    # The data-protection officer (LGPD art. 41): a user of the platform's own group who answers data
    # subjects, so reads the data-subject report across every tenant and nothing else of theirs.
    DPO = "dpo"


class UserStatus(StrEnum):
    ACTIVE = "active"
    INACTIVE = "inactive"
    FIRST_ACCESS = "first-access"
    # Removed from the lists and unable to sign in; its events stay (they are the audit trail).
    ARCHIVED = "archived"


class User(AuditedAggregate):
    class Registered(AuditedAggregate.Created):
        group_id: UUID
        name: str
        email: str
        role: str
        status: str
        password_hash: str
        unique_key: str

    @event(Registered)
    def __init__(
        self,
        group_id: UUID,
        name: str,
        email: str,
        role: str,
        status: str,
        password_hash: str,
        unique_key: str,
    ) -> None:
        self.group_id = group_id
        self.name = name
        self.email = email
        self.role = Role(role)
        self.status = UserStatus(status)
        self.password_hash = password_hash
        self.unique_key = unique_key

    @classmethod
    def register(
        cls, *, group_id: UUID, name: str, email: str, role: Role, status: UserStatus, password_hash: str
    ) -> User:
        return cls(
            group_id=group_id,
            name=name,
            email=email,
            role=role.value,
            status=status.value,
            password_hash=password_hash,
            unique_key=secrets.token_hex(16),
        )

    @property
    def may_sign_in(self) -> bool:
        return self.status in (UserStatus.ACTIVE, UserStatus.FIRST_ACCESS)

    class PasswordChanged(AuditedAggregate.Event):
        password_hash: str

    @event(PasswordChanged)
    def change_password_hash(self, password_hash: str) -> None:
        self.password_hash = password_hash
        if self.status == UserStatus.FIRST_ACCESS:
            self.status = UserStatus.ACTIVE

    class PasswordRehashed(AuditedAggregate.Event):
        password_hash: str

    @event(PasswordRehashed)
    def rehash_password(self, password_hash: str) -> None:
        """Same password, stronger parameters: not a change the user made."""
        self.password_hash = password_hash

    # -- management and profile (commands/users.py) ------------------------------------------

    class DetailsChanged(AuditedAggregate.Event):
        name: str
        cpf: str
        phone: str | None
        functions: str
        social_profile: str | None
        biography: str | None
        user_name: str | None

    @event(DetailsChanged)
    def change_details(
        self,
        name: str,
        cpf: str,
        phone: str | None,
        functions: str,
        social_profile: str | None,
        biography: str | None,
        user_name: str | None,
    ) -> None:
        self.name = name
        self.cpf = cpf
        self.phone = phone
        self.functions = functions
        self.social_profile = social_profile
        self.biography = biography
        self.user_name = user_name

    class RoleChanged(AuditedAggregate.Event):
        role: str

    @event(RoleChanged)
    def change_role(self, role: str) -> None:
        self.role = Role(role)

    class StatusChanged(AuditedAggregate.Event):
        status: str

    @event(StatusChanged)
    def change_status(self, status: str) -> None:
        if status == UserStatus.INACTIVE and self.status != UserStatus.INACTIVE:
            self.resumes_as = self.status  # what activating it again gives back
        self.status = UserStatus(status)

    class PhotoChanged(AuditedAggregate.Event):
        image_base64: str
        content_type: str
        digest: str

    @event(PhotoChanged)
    def change_photo(self, image_base64: str, content_type: str, digest: str) -> None:
        """The event carries the (small, resized) image; the aggregate keeps only its digest."""
        self.photo_digest = digest

    class PreferencesChanged(AuditedAggregate.Event):
        preferences: dict[str, bool]

    @event(PreferencesChanged)
    def change_preferences(self, preferences: dict[str, bool]) -> None:
        self.preferences = dict(preferences)
