"""The tests' client of the app: Starlette's ``TestClient`` (its lifespan, cookies, redirects and portal), with each
request exchanged with the app in one call into the client's event loop.

Starlette's own transport streams a response through the portal, some eight calls between the test's thread and
the loop's a request; httpx's ``ASGITransport`` runs the app and reads the whole answer in one, at less than half
the CPU a request. The scope it builds is the one a server's would be (no test-only ``state`` or extensions)."""

from __future__ import annotations

from typing import Any

import httpx
from starlette.testclient import TestClient


class _OneCallTransport(httpx.BaseTransport):
    def __init__(self, test_client: TestClient, streaming: httpx.BaseTransport, **asgi: Any) -> None:
        self._client = test_client
        self._streaming = streaming  # outside ``with``: no loop of the client's to call into
        self._asgi = httpx.ASGITransport(test_client.app, **asgi)

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        portal = self._client.portal
        if portal is None:
            return self._streaming.handle_request(request)
        content = request.read()

        async def exchange() -> tuple[int, httpx.Headers, bytes]:
            inner = httpx.Request(
                request.method, request.url, headers=request.headers, content=content, extensions=request.extensions
            )
            answer = await self._asgi.handle_async_request(inner)
            return answer.status_code, answer.headers, await answer.aread()

        status, headers, body = portal.call(exchange)
        return httpx.Response(status, headers=headers, content=body, request=request)


class ApiClient(TestClient):
    def __init__(
        self,
        app: Any,
        *,
        raise_server_exceptions: bool = True,
        root_path: str = "",
        client: tuple[str, int] = ("testclient", 50000),
        **options: Any,
    ) -> None:
        super().__init__(
            app, raise_server_exceptions=raise_server_exceptions, root_path=root_path, client=client, **options
        )
        self._transport = _OneCallTransport(
            self, self._transport, raise_app_exceptions=raise_server_exceptions, root_path=root_path, client=client
        )
