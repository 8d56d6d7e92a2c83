"""Customers: the groups a white-label or reseller registers under itself (section 3 and 5)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Query

from bemtevi.api.deps import PlatformDep, allowed_route, wait_for_position
from bemtevi.api.schemas import (
    CustomerListResponse,
    CustomerRequest,
    CustomerSummary,
    ErrorResponse,
    RegisteredCustomerData,
    RegisteredCustomerResponse,
)
from bemtevi.commands.identity import Principal
from bemtevi.domain.customers import CustomerForm
from bemtevi.domain.groups import GroupType
from bemtevi.domain.query_types import Category
from bemtevi.projections.directory import customers_of

router = APIRouter(prefix="/customers", tags=["customers"])


@router.post(
    "",
    response_model=RegisteredCustomerResponse,
    responses={403: {"model": ErrorResponse}, 409: {"model": ErrorResponse}, 422: {"model": ErrorResponse}},
)
def register_customer(
    body: CustomerRequest,
    principal: Annotated[Principal, Depends(allowed_route("add-new-customer"))],
    platform: PlatformDep,
) -> RegisteredCustomerResponse:
    form = CustomerForm(
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
        panel_access=body.panelAccess,
        api_access=body.apiAccess,
        quantities={Category(k): v for k, v in body.quantities.model_dump().items()},
        seller=body.seller,
        white_label_url=body.whiteLabelUrl,
    )
    registered = platform.customers.register(principal, form)
    return RegisteredCustomerResponse(
        data=RegisteredCustomerData(
            id=str(registered.group_id),
            ownerId=str(registered.owner_id),
            ownerEmail=registered.owner_email,
            generatedPassword=registered.generated_password,
        ),
        position=registered.position,
    )


@router.get("", response_model=CustomerListResponse)
def list_customers(
    principal: Annotated[Principal, Depends(allowed_route("customer-list"))],
    platform: PlatformDep,
    search: Annotated[str | None, Query(max_length=100)] = None,
    page: Annotated[int, Query(ge=1)] = 1,
    per_page: Annotated[int, Query(alias="perPage", ge=1, le=100)] = 20,
    position: Annotated[int | None, Query(ge=0)] = None,
) -> CustomerListResponse:
    up_to_date = wait_for_position(platform, position)
    rows, total = customers_of(
        platform.store.cursor(), str(principal.group_id), search, offset=(page - 1) * per_page, limit=per_page
    )
    return CustomerListResponse(
        data=[CustomerSummary.model_validate(r) for r in rows],
        total=total,
        page=page,
        perPage=per_page,
        upToDate=up_to_date,
    )
