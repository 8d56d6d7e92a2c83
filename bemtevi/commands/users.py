"""Users of a group and a user's own account: add, edit, activate/inactivate, archive, profile,
photo, password, preferences, sessions. Every change is an appended event (domain/users.py).

Who may manage whom: a super-admin everyone; an owner or admin the users of their own group and
of every group below it (a reseller or white-label manages its customers' users), never a
super-admin unless they are one. A user never changes their own status or role, nor archives
themselves (specification section 6).
"""

from __future__ import annotations

from base64 import b64encode
from collections.abc import Iterable
from dataclasses import dataclass
from uuid import UUID

from eventsourcing.persistence import IntegrityError

from bemtevi.commands.application import BemteviApplication, retry_on_conflict
from bemtevi.commands.identity import IdentityCommands
from bemtevi.domain.audit import Actor, acting_as
from bemtevi.domain.contact import normalise_email
from bemtevi.domain.errors import (
    AccessDenied,
    CannotChangeYourRole,
    CannotChangeYourStatus,
    CannotDeleteYourself,
    DuplicateValue,
    GroupNotFound,
    RoleNeedsPlatformGroup,
    UserNotFound,
    WrongCurrentPassword,
)
from bemtevi.domain.groups import Group
from bemtevi.domain.indexes import USER_EMAIL, UniqueIndex, index_id
from bemtevi.domain.passwords import check_new_password, generate_password
from bemtevi.domain.principals import ROOT_GROUP_ID, Principal
from bemtevi.domain.profiles import ASSIGNABLE_ROLES, UserDetails, clean_preferences
from bemtevi.domain.sessions import Session
from bemtevi.domain.users import Role, User, UserStatus
from bemtevi.infra.passwords import PasswordHasher
from bemtevi.infra.photos import resized_photo

MANAGER_ROLES = frozenset({Role.ADMIN, Role.OWNER, Role.SUPER_ADMIN})


@dataclass(frozen=True, slots=True)
class AddedUser:
    user_id: UUID
    email: str
    # Shown once to the admin who added the user; the user must change it at first access.
    generated_password: str
    position: int


class UserCommands:
    def __init__(self, app: BemteviApplication, identity: IdentityCommands, hasher: PasswordHasher) -> None:
        self._app = app
        self._identity = identity
        self._hasher = hasher

    # -- scope -------------------------------------------------------------------------------

    def manages_group(self, principal: Principal, group_id: UUID) -> bool:
        """Whether the caller manages the users of ``group_id`` (its own group or one below it)."""
        if principal.role not in MANAGER_ROLES:
            return False
        if principal.role == Role.SUPER_ADMIN:
            return True
        seen: set[UUID] = set()
        current = self._app.find(group_id, Group)
        while current is not None and current.id not in seen:
            if current.id == principal.group_id:
                return True
            seen.add(current.id)
            current = self._app.find(current.parent_id, Group) if current.parent_id else None
        return False

    def require_group(self, principal: Principal, group_id: UUID) -> Group:
        group = self._app.find(group_id, Group)
        # Another tenant's group is answered exactly like a missing one.
        if group is None or not self.manages_group(principal, group_id):
            raise GroupNotFound()
        return group

    def _managed_user(self, principal: Principal, user_id: UUID) -> User:
        user = self._app.find(user_id, User)
        if user is None or user.status == UserStatus.ARCHIVED or not self.manages_group(principal, user.group_id):
            raise UserNotFound()
        if user.role == Role.SUPER_ADMIN and principal.role != Role.SUPER_ADMIN:
            raise UserNotFound()
        return user

    def _own_user(self, principal: Principal) -> User:
        user = self._app.find(principal.user_id, User)
        if user is None:
            raise UserNotFound()
        return user

    @staticmethod
    def _check_assignable(principal: Principal, role: Role, group_id: UUID) -> None:
        if role not in ASSIGNABLE_ROLES[principal.role]:
            raise AccessDenied()
        if role == Role.DPO and group_id != ROOT_GROUP_ID:
            raise RoleNeedsPlatformGroup(field="role")

    @staticmethod
    def _acting(principal: Principal, user: User) -> Actor:
        # The actor is the caller; the tenant acted for is the managed user's group.
        return Actor(user_id=principal.user_id, tenant_id=user.group_id)

    # -- management --------------------------------------------------------------------------

    def add(self, principal: Principal, group_id: UUID, email: str, role: Role, details: UserDetails) -> AddedUser:
        self.require_group(principal, group_id)
        self._check_assignable(principal, role, group_id)
        details = details.validated()
        key = normalise_email(email)
        existing = self._app.find(index_id(USER_EMAIL, key), UniqueIndex)
        if existing is not None and getattr(existing, "taken", True):
            raise DuplicateValue("Email already registered", field="email")
        password = generate_password()
        with acting_as(Actor(user_id=principal.user_id, tenant_id=group_id)):
            user, index = self._identity.new_user(group_id, details.name, key, password, role, UserStatus.FIRST_ACCESS)
            if existing is not None:  # a released address is claimed again, not created twice
                existing.reclaim(user.id)
                index = existing
            self._apply_details(user, details)
            try:
                position = self._app.save_all(user, index)
            except IntegrityError as e:
                raise DuplicateValue("Email already registered", field="email") from e
        return AddedUser(user.id, key, password, position)

    def edit(self, principal: Principal, user_id: UUID, role: Role, details: UserDetails) -> int:
        details = details.validated()

        def decide() -> int:
            user = self._managed_user(principal, user_id)
            if role != user.role:
                if user.id == principal.user_id:
                    raise CannotChangeYourRole(field="role")
                self._check_assignable(principal, role, user.group_id)
            with acting_as(self._acting(principal, user)):
                self._apply_details(user, details)
                if role != user.role:
                    user.change_role(role.value)
            return self._app.save_all(user)

        return retry_on_conflict(decide)

    def set_active(self, principal: Principal, user_id: UUID, active: bool) -> int:
        if user_id == principal.user_id:
            raise CannotChangeYourStatus()

        def decide() -> int:
            user = self._managed_user(principal, user_id)
            if active:
                # Back to where it was: a user who never chose a password still has to.
                target = getattr(user, "resumes_as", None) or UserStatus.ACTIVE
                if user.status != UserStatus.INACTIVE:
                    return self._app.max_position()
            else:
                target = UserStatus.INACTIVE
                if user.status == UserStatus.INACTIVE:
                    return self._app.max_position()
            with acting_as(self._acting(principal, user)):
                user.change_status(UserStatus(target).value)
            return self._app.save_all(user)

        return retry_on_conflict(decide)

    def archive(self, principal: Principal, user_id: UUID) -> int:
        if user_id == principal.user_id:
            raise CannotDeleteYourself()

        def decide() -> int:
            user = self._managed_user(principal, user_id)
            with acting_as(self._acting(principal, user)):
                user.change_status(UserStatus.ARCHIVED.value)
            return self._app.save_all(user)

        return retry_on_conflict(decide)

    # -- one's own account (or, for a manager, a managed user's profile) -----------------------

    def _editable(self, principal: Principal, user_id: UUID) -> User:
        return self._own_user(principal) if user_id == principal.user_id else self._managed_user(principal, user_id)

    def change_details(self, principal: Principal, user_id: UUID, details: UserDetails) -> int:
        details = details.validated()

        def decide() -> int:
            user = self._editable(principal, user_id)
            with acting_as(self._acting(principal, user)):
                self._apply_details(user, details)
            return self._app.save_all(user)

        return retry_on_conflict(decide)

    def check_editable(self, principal: Principal, user_id: UUID) -> None:
        """Refuses, as an edit would, a user the principal may not edit (before an upload is read)."""
        self._editable(principal, user_id)

    def change_photo(self, principal: Principal, user_id: UUID, upload: bytes) -> int:
        self._editable(principal, user_id)  # before decoding anything
        photo = resized_photo(upload)

        def decide() -> int:
            user = self._editable(principal, user_id)
            with acting_as(self._acting(principal, user)):
                user.change_photo(b64encode(photo.data).decode("ascii"), photo.content_type, photo.digest)
            return self._app.save_all(user)

        return retry_on_conflict(decide)

    def change_password(self, principal: Principal, current: str, new: str, confirmation: str) -> int:
        user = self._own_user(principal)
        if not self._hasher.verify(user.password_hash, current):
            raise WrongCurrentPassword(field="currentPassword")
        check_new_password(new, confirmation)
        new_hash = self._hasher.hash(new)

        def decide() -> int:
            latest = self._own_user(principal)
            with acting_as(principal.actor):
                latest.change_password_hash(new_hash)
            return self._app.save_all(latest)

        return retry_on_conflict(decide)

    def change_preferences(self, principal: Principal, values: dict[str, bool]) -> int:
        def decide() -> int:
            user = self._own_user(principal)
            preferences = clean_preferences({**getattr(user, "preferences", {}), **values})
            if preferences == getattr(user, "preferences", None):
                return self._app.max_position()
            with acting_as(principal.actor):
                user.change_preferences(preferences)
            return self._app.save_all(user)

        return retry_on_conflict(decide)

    def sign_out_sessions(self, principal: Principal, session_ids: Iterable[UUID]) -> int:
        """Close the caller's other open sessions (ids from the sessions read model)."""
        closing: list[Session] = []
        with acting_as(principal.actor):
            for session_id in session_ids:
                if session_id == principal.session_id:
                    continue
                session = self._app.find(session_id, Session)
                if session is None or session.user_id != principal.user_id or session.closed:
                    continue
                session.close("signed out everywhere")
                closing.append(session)
        if not closing:
            return self._app.max_position()
        return self._app.save_all(*closing)

    @staticmethod
    def _apply_details(user: User, details: UserDetails) -> None:
        user.change_details(
            name=details.name,
            cpf=details.cpf,
            phone=details.phone,
            functions=details.functions,
            social_profile=details.social_profile,
            biography=details.biography,
            user_name=details.user_name,
        )
