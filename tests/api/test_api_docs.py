"""/api/docs is Swagger UI from the product's own files: nothing is asked of another host."""

from __future__ import annotations

import re
from pathlib import Path

from api_client import ApiClient
from fastapi import FastAPI
from fastapi.testclient import TestClient

from bemtevi.api.static import API_DOCS_DIR, mount_api_docs, mount_webapp


def docs_app(dist: Path) -> TestClient:
    app = FastAPI(title="Bemtevi API", docs_url=None, openapi_url="/api/openapi.json", redoc_url=None)
    mount_api_docs(app, dist)
    mount_webapp(app, dist)
    return ApiClient(app)


def built(tmp_path: Path) -> Path:
    dist = tmp_path / "dist"
    (dist / API_DOCS_DIR).mkdir(parents=True)
    (dist / API_DOCS_DIR / "swagger-ui-bundle.js").write_text("window.SwaggerUIBundle = function () {}")
    (dist / API_DOCS_DIR / "swagger-ui.css").write_text(".swagger-ui {}")
    (dist / "favicon.svg").write_text("<svg/>")
    (dist / "index.html").write_text("<!doctype html><title>app</title>")
    return dist


def test_the_docs_page_loads_only_the_products_own_files(tmp_path: Path) -> None:
    client = docs_app(built(tmp_path))
    page = client.get("/api/docs")
    assert page.status_code == 200
    addresses = re.findall(r"""(?:src|href)="([^"]+)"|url: '([^']+)'""", page.text)
    loaded = [a or b for a, b in addresses]
    assert f"/{API_DOCS_DIR}/swagger-ui-bundle.js" in loaded and f"/{API_DOCS_DIR}/swagger-ui.css" in loaded
    assert "/api/openapi.json" in loaded
    assert all(address.startswith("/") and not address.startswith("//") for address in loaded), loaded
    assert "http://" not in page.text and "https://" not in page.text
    for address in loaded:
        assert client.get(address).status_code == 200, address


def test_without_the_web_build_the_docs_page_says_so(tmp_path: Path) -> None:
    page = docs_app(tmp_path / "no-dist").get("/api/docs")
    assert page.status_code == 503
    assert "make run" in page.text
