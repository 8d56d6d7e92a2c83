"""Role menus: the navigation tree the server hands to the web app (specification section 2).

Route permission is the union of ``active_routes`` found anywhere in the tree; the API checks
the same routes, so hiding a link is never the only guard.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from bemtevi.domain.users import Role


@dataclass(frozen=True, slots=True)
class MenuEntry:
    name: str
    label: str
    icon: str
    route: str | None
    active_routes: tuple[str, ...] = ()
    children: tuple[MenuEntry, ...] = field(default_factory=tuple)

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "label": self.label,
            "icon": self.icon,
            "route": self.route,
            "active_routes": list(self.active_routes),
            "children": [c.as_dict() for c in self.children],
        }


def _leaf(name: str, label: str, icon: str, route: str, *extra_routes: str) -> MenuEntry:
    return MenuEntry(name, label, icon, route, (route, *extra_routes))


USERS = _leaf("users", "menu.users", "group", "users")
CUSTOMERS = _leaf("customers", "menu.customers", "business", "customer-list", "add-new-customer")
SUPPLIERS = _leaf("suppliers", "menu.suppliers", "local_shipping", "supplier-list", "add-new-supplier")
LAYOUTS = _leaf("layouts", "menu.layouts", "view_quilt", "layout-list", "add-new-layout")
QUERY_TYPES = _leaf("query-types", "menu.queryTypes", "category", "queries-list", "add-new-query")
NORMAL_QUERY = _leaf("normal-query", "menu.normalQuery", "search", "normal-query", "query-result")
BATCH_QUERY = _leaf("batch-query", "menu.batchQuery", "upload_file", "batch-query")
MANUAL_ENRICHMENT = _leaf(
    "manual-enrichment", "menu.manualEnrichment", "playlist_add_check", "manual-enrichment", "new-manual-enrichment"
)
ADVANCED_QUERY = _leaf(
    "advanced-query",
    "menu.advancedQuery",
    "manage_search",
    "advanced-query",
    "advanced-query-result-list",
    "advanced-query-result",
)
DASHBOARD = _leaf("dashboard", "menu.dashboard", "dashboard", "dashboard")
REPORTS = _leaf("reports", "menu.reports", "assessment", "reports")
BALANCES = _leaf("balances", "menu.balances", "account_balance_wallet", "balances", "balance-history")
# The profile screens are always allowed; listed here so the menu marks My Account active on them.
MY_ACCOUNT = _leaf("my-account", "menu.myAccount", "person", "my-account", "edit-my-profile", "personal-information")
API = _leaf("api", "menu.api", "code", "api-query", "playground")
MAIL_OUTBOX = _leaf("mail-outbox", "menu.mailOutbox", "mail", "mail-outbox")
BRAND = _leaf("brand", "menu.brand", "palette", "brand-settings")
AUDIT_LOG = _leaf("audit-log", "menu.auditLog", "history", "audit-log")
DATA_SUBJECT = _leaf("data-subject", "menu.dataSubject", "policy", "data-subject-report")


def _section(name: str, label: str, icon: str, *children: MenuEntry) -> MenuEntry:
    return MenuEntry(name, label, icon, None, (), tuple(children))


def menu_for(role: Role) -> list[MenuEntry]:
    queries = _section("queries", "menu.queries", "search", NORMAL_QUERY, BATCH_QUERY, ADVANCED_QUERY)
    financial = _section("financial", "menu.financial", "payments", BALANCES)
    # Sections in the specification's order: Register, Queries, Dashboard, Reports, Financial, My Account, API.
    if role == Role.USER:
        return [queries, DASHBOARD, REPORTS, MY_ACCOUNT]
    if role == Role.DPO:
        # Every signed-in user lands on the dashboard; the report is the officer's only other screen.
        return [DASHBOARD, DATA_SUBJECT, MY_ACCOUNT]
    # Manual enrichment (for the group or a customer below it): owners, admins and super-admins.
    queries = _section(
        "queries", "menu.queries", "search", NORMAL_QUERY, BATCH_QUERY, ADVANCED_QUERY, MANUAL_ENRICHMENT
    )
    register_children = [USERS, CUSTOMERS]
    if role == Role.SUPER_ADMIN:
        register_children += [SUPPLIERS, LAYOUTS, QUERY_TYPES, MAIL_OUTBOX]
    else:
        # Owners and admins keep their group's own layouts (written, or copied from the ready ones).
        register_children += [LAYOUTS]
    register_children += [BRAND, AUDIT_LOG]
    if role == Role.SUPER_ADMIN:
        register_children += [DATA_SUBJECT]
    register = _section("register", "menu.register", "app_registration", *register_children)
    return [register, queries, DASHBOARD, REPORTS, financial, MY_ACCOUNT, API]


ALWAYS_ALLOWED_ROUTES = frozenset({"error-forbidden", "my-account", "personal-information", "edit-my-profile"})


def active_routes(entries: Iterable[MenuEntry]) -> Iterator[str]:
    for entry in entries:
        yield from entry.active_routes
        yield from active_routes(entry.children)


@lru_cache(maxsize=1024)  # asked on every call; a role's menu is fixed by the code
def may_open(role: Role, route: str) -> bool:
    return route in ALWAYS_ALLOWED_ROUTES or route in set(active_routes(menu_for(role)))
