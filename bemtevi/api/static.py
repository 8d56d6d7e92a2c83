"""Serves the built web app: hashed assets, and index.html for any other path (history mode); and
the API's documentation page, whose Swagger UI files come with the web build."""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles

from bemtevi.api.error_codes import http_error_code
from bemtevi.api.errors import error_body

_MISSING = """<!doctype html><html lang="pt-BR"><meta charset="utf-8"><title>Bemtevi</title>
<body style="font-family:sans-serif;padding:2rem"><h1>Bemtevi</h1>
<p>A interface web não foi compilada. Rode <code>make run</code>.</p>
<p>The web app has not been built. Run <code>make run</code>.</p></body></html>"""

# Where the web build puts Swagger UI's files (the swagger-ui-dist package; webapp/vite.config.ts).
API_DOCS_DIR = "api-docs"


def mount_api_docs(app: FastAPI, dist: Path, path: str = "/api/docs") -> None:
    """Swagger UI at ``path`` from the product's own copy of its files, not FastAPI's default CDN:
    the page works on a machine without internet, and asks nothing of another host."""
    bundle = dist / API_DOCS_DIR / "swagger-ui-bundle.js"

    @app.get(path, include_in_schema=False)
    def api_docs() -> HTMLResponse:
        if app.openapi_url is None or not bundle.is_file():
            return HTMLResponse(_MISSING, status_code=503)
        return get_swagger_ui_html(
            openapi_url=app.openapi_url,
            title=f"{app.title} - docs",
            swagger_js_url=f"/{API_DOCS_DIR}/swagger-ui-bundle.js",
            swagger_css_url=f"/{API_DOCS_DIR}/swagger-ui.css",
            swagger_favicon_url="/favicon.svg",
            # No badge from the public validator service.
            swagger_ui_parameters={"validatorUrl": None},
        )


def mount_webapp(app: FastAPI, dist: Path) -> None:
    assets = dist / "assets"
    if assets.is_dir():
        app.mount("/assets", StaticFiles(directory=assets), name="assets")
    index = dist / "index.html"

    @app.get("/{path:path}", include_in_schema=False)
    def webapp(path: str, request: Request) -> Response:
        if path == "api" or path.startswith("api/"):
            return JSONResponse(
                error_body(404, "Request failed with status code 404", http_error_code(404)), status_code=404
            )
        candidate = (dist / path).resolve()
        if path and candidate.is_file() and dist.resolve() in candidate.parents:
            return FileResponse(candidate)
        if not index.is_file():
            return HTMLResponse(_MISSING, status_code=503)
        return FileResponse(index, headers={"Cache-Control": "no-cache"})
