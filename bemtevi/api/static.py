"""Serves the built web app: hashed assets, and index.html for any other path (history mode)."""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles

from bemtevi.api.errors import error_body, http_error_code

_MISSING = """<!doctype html><html lang="pt-BR"><meta charset="utf-8"><title>Bemtevi</title>
<body style="font-family:sans-serif;padding:2rem"><h1>Bemtevi</h1>
<p>A interface web não foi compilada. Rode <code>make run</code>.</p>
<p>The web app has not been built. Run <code>make run</code>.</p></body></html>"""


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
