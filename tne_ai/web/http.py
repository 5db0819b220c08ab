"""The request helpers every page of `tne-ai serve` shares (tne_ai/web/app.py and tne_ai/web/replay.py).

The package's static folder (`STATIC`, the only files ever served), a
request body read up to a limit and no further (`read_limited`), the JSON
error every refusal is (`error`: {"error": message} with its status), and
a small JSON object whose fields are checked against a list (`json_object`)
and an uploaded game record (`record_text`).
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse

STATIC = Path(__file__).parent / "static"
MAX_JSON_BYTES = 16_384               # a JSON request (a new game, a watched game)
MAX_RECORD_BYTES = 1_000_000          # an uploaded record (play, watch, review): 1 MB at most


def page(name: str) -> FileResponse:
    """Return one of the static folder's HTML pages."""
    return FileResponse(STATIC / name, media_type="text/html")


def error(status: int, message: str) -> JSONResponse:
    """Return the JSON error response {"error": message} with HTTP status `status`."""
    return JSONResponse({"error": message}, status_code=status)


async def read_limited(request: Request, limit: int) -> Optional[bytes]:
    """Return the request body, or None once it exceeds `limit` bytes (read no further)."""
    length = request.headers.get("content-length")
    if length is not None and (not length.isdigit() or int(length) > limit):
        return None
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            return None
    return bytes(body)


async def record_text(request: Request) -> tuple:
    """Return (the body as text, None), or (None, the error response): a record is UTF-8, MAX_RECORD_BYTES at most."""
    raw = await read_limited(request, MAX_RECORD_BYTES)
    if raw is None:
        return None, error(413, f"the record is too large: at most {MAX_RECORD_BYTES:,} bytes (1 MB)")
    try:
        return raw.decode("utf-8"), None
    except UnicodeDecodeError:
        return None, error(400, "the record is not UTF-8 text")


async def json_object(request: Request, what: str, fields) -> tuple:
    """Return (the body's JSON object, None), or (None, the error response) for a bad or oversized body.

    `what` names the request in the size error; a field not among `fields` is refused.
    """
    raw = await read_limited(request, MAX_JSON_BYTES)
    if raw is None:
        return None, error(413, f"{what} is at most {MAX_JSON_BYTES} bytes")
    try:
        data = json.loads(raw or b"{}")
    except ValueError as e:
        return None, error(400, f"not JSON: {e}")
    if not isinstance(data, dict):
        return None, error(400, "expected a JSON object")
    unknown = set(data) - set(fields)
    if unknown:
        return None, error(400, f"unknown field(s): {', '.join(sorted(unknown))}")
    return data, None
