"""Customers: the groups a white-label or reseller registers under itself (section 3 and 5)."""

from __future__ import annotations

from typing import Annotated
from uuid import UUID

from fastapi import APIRouter, Depends, Query, Request

from bemtevi.api.bounds import SEARCH_MAX
from bemtevi.api.credit_schemas import PositionResponse
from bemtevi.api.customer_schemas import (
    CustomerListResponse,
    CustomerRequest,
    CustomerSummary,
    RegisteredCustomerData,
    RegisteredCustomerResponse,
)
from bemtevi.api.deps import PlatformDep, PositionQuery, allowed_route, wait_for_position
from bemtevi.api.group_schemas import CustomerDetail, CustomerDetailResponse, CustomerEditRequest, StatusRequest
from bemtevi.api.paging import Page, ordering, paging
from bemtevi.api.schemas import ErrorResponse
from bemtevi.bootstrap import Platform
from bemtevi.commands.invitations import inviter
from bemtevi.domain.customers import CustomerForm
from bemtevi.domain.errors import GroupNotFound
from bemtevi.domain.groups import GroupType
from bemtevi.domain.principals import Principal
from bemtevi.domain.query_types import Category
from bemtevi.projections.credit_queries import subtree_ids
from bemtevi.projections.customers import customer_detail
from bemtevi.projections.directory import CUSTOMERS_ORDER, ancestor_ids, customers_of

router = APIRouter(prefix="/customers", tags=["customers"])


@router.post(
    "",
    response_model=RegisteredCustomerResponse,
    responses={403: {"model": ErrorResponse}, 409: {"model": ErrorResponse}, 422: {"model": ErrorResponse}},
)
def register_customer(
    body: CustomerRequest,
    request: Request,
    principal: Annotated[Principal, Depends(allowed_route("add-new-customer"))],
    platform: PlatformDep,
) -> RegisteredCustomerResponse:
    """The customer, its owner and the owner's invitation (an e-mail to choose a password) in one append."""
    form = _customer_form(body, quantities={Category(k): v for k, v in body.quantities.model_dump().items()})
    invite = inviter(platform.accounts, request.headers.get("host"), body.locale)
    registered = platform.customers.register(principal, form, invite=invite)
    return RegisteredCustomerResponse(
        data=RegisteredCustomerData(
            id=str(registered.group_id),
            uniqueKey=registered.unique_key,
            ownerId=str(registered.owner_id),
            ownerEmail=registered.owner_email,
            invitationSentTo=registered.owner_email,
        ),
        position=registered.position,
    )


@router.get("", response_model=CustomerListResponse)
def list_customers(
    principal: Annotated[Principal, Depends(allowed_route("customer-list"))],
    platform: PlatformDep,
    page: Annotated[Page, Depends(paging(default_size=20, max_size=100))],
    order: Annotated[str | None, Depends(ordering(CUSTOMERS_ORDER))],
    search: Annotated[str | None, Query(max_length=SEARCH_MAX)] = None,
    position: PositionQuery = None,
) -> CustomerListResponse:
    up_to_date = wait_for_position(platform, position)
    rows, total = customers_of(
        platform.store.cursor(), str(principal.group_id), search, offset=page.offset, limit=page.size, order=order
    )
    return CustomerListResponse(
        data=[CustomerSummary.model_validate(r) for r in rows],
        total=total,
        page=page.number,
        perPage=page.size,
        upToDate=up_to_date,
    )


def _below(platform: Platform, principal: Principal, group_id: str) -> None:
    """A customer is read only from above it: anything else answers 'not found'."""
    cur = platform.store.cursor()
    if group_id == str(principal.group_id) or str(principal.group_id) not in ancestor_ids(cur, group_id):
        raise GroupNotFound()


def _group_uuid(group_id: str) -> UUID:
    try:
        return UUID(group_id)
    except ValueError as e:
        raise GroupNotFound() from e


@router.get("/{group_id}", response_model=CustomerDetailResponse, responses={404: {"model": ErrorResponse}})
def customer(
    group_id: str,
    principal: Annotated[Principal, Depends(allowed_route("customer-list"))],
    platform: PlatformDep,
    position: PositionQuery = None,
) -> CustomerDetailResponse:
    _group_uuid(group_id)
    up_to_date = wait_for_position(platform, position)
    _below(platform, principal, group_id)
    detail = customer_detail(platform.store.cursor(), group_id)
    if detail is None:
        raise GroupNotFound()
    return CustomerDetailResponse(data=CustomerDetail.model_validate(detail), upToDate=up_to_date)


@router.put(
    "/{group_id}",
    response_model=PositionResponse,
    responses={403: {"model": ErrorResponse}, 404: {"model": ErrorResponse}, 409: {"model": ErrorResponse}},
)
def edit_customer(
    group_id: str,
    body: CustomerEditRequest,
    principal: Annotated[Principal, Depends(allowed_route("add-new-customer"))],
    platform: PlatformDep,
) -> PositionResponse:
    target = _group_uuid(group_id)
    form = _customer_form(body)
    # The subtree a narrowing is carried down to: from the read side once it has the latest log.
    wait_for_position(platform, platform.app.max_position())
    descendants = [UUID(g) for g in subtree_ids(platform.store.cursor(), group_id)]
    toggles = body.toggles.given() if body.toggles else None
    position = platform.customers.edit(principal, target, form, toggles, descendants)
    return PositionResponse(position=position)


@router.post(
    "/{group_id}/status",
    response_model=PositionResponse,
    responses={403: {"model": ErrorResponse}, 404: {"model": ErrorResponse}},
)
def change_customer_status(
    group_id: str,
    body: StatusRequest,
    principal: Annotated[Principal, Depends(allowed_route("customer-list"))],
    platform: PlatformDep,
) -> PositionResponse:
    return PositionResponse(position=platform.customers.set_status(principal, _group_uuid(group_id), body.active))


def _customer_form(
    body: CustomerRequest | CustomerEditRequest, quantities: dict[Category, int] | None = None
) -> CustomerForm:
    """The domain's form from the fields registration and editing share (editing moves no credits)."""
    return CustomerForm(
        group_type=GroupType(body.type),
        cnpj=body.cnpj,
        company_name=body.companyName,
        trade_name=body.tradeName,
        person_in_charge=body.personInCharge,
        phone=body.phone,
        email=body.email,
        default_query=body.defaultQuery,
        consult_protest=body.consultProtest,
        enabled_query_types=tuple(body.enabledQueryTypes),
        enabled_layouts=None if body.enabledLayouts is None else tuple(body.enabledLayouts),
        panel_access=body.panelAccess,
        api_access=body.apiAccess,
        seller=body.seller,
        white_label_url=body.whiteLabelUrl,
        quantities=quantities or {},
    )
