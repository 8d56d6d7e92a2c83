"""Request and response shapes of users management and my account."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from bemtevi.api.bounds import LIST_MAX, DocumentText, Email, Key, Password, PersonName, Phone, ShortText, Text
from bemtevi.api.schemas import UtcDateTime

RoleName = Literal["user", "admin", "owner", "super-admin", "dpo"]
StatusName = Literal["active", "inactive", "first-access", "archived"]


class UserDetailsRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: PersonName = Field(min_length=1)
    cpf: DocumentText = Field(min_length=1)
    functions: ShortText = Field(min_length=1)
    phone: Phone | None = None
    socialProfile: Text | None = None
    biography: Text | None = None
    userName: ShortText | None = None


class AddUserRequest(UserDetailsRequest):
    groupId: Key | None = None
    email: Email = Field(min_length=1)
    role: RoleName = "user"


class EditUserRequest(UserDetailsRequest):
    role: RoleName


class UserStatusRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    active: bool


class UserSummary(BaseModel):
    id: str
    uniqueKey: str
    groupId: str
    name: str
    email: str
    role: RoleName
    status: StatusName
    createdAt: UtcDateTime | None
    cpf: str | None = None
    phone: str | None = None
    functions: str | None = None
    hasPhoto: bool = False


class UserListResponse(BaseModel):
    data: list[UserSummary]
    total: int
    page: int
    pageSize: int
    upToDate: bool = True


class UserDetail(UserSummary):
    socialProfile: str | None = None
    biography: str | None = None
    userName: str | None = None
    photoDigest: str | None = None
    preferences: dict[str, bool] = Field(default_factory=dict)
    passwordChangedAt: UtcDateTime | None = None
    groupName: str | None = None
    groupUniqueKey: str | None = None


class UserDetailResponse(BaseModel):
    data: UserDetail
    upToDate: bool = True


class AddedUserData(BaseModel):
    id: str
    email: str
    # Shown once, to the admin who added the user.
    generatedPassword: str


class AddedUserResponse(BaseModel):
    data: AddedUserData
    position: int


class ChangePasswordRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    currentPassword: Password = Field(min_length=1)
    newPassword: Password = Field(min_length=1)
    confirmation: Password = Field(min_length=1)


class PreferencesRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    preferences: dict[Key, bool] = Field(max_length=LIST_MAX)


class SessionRow(BaseModel):
    id: str
    openedAt: UtcDateTime | None
    expiresAt: UtcDateTime | None
    current: bool


class SessionsResponse(BaseModel):
    data: list[SessionRow]
    upToDate: bool = True
