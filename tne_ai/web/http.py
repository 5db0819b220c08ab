"""The request helpers every page of `tne-ai serve` shares (tne_ai/web/app.py and tne_ai/web/replay.py).

The package's static folder (`STATIC`, the only files ever served), a
request body read up to a limit and no further (`read_limited`), the JSON
error every refusal is (`error`: {"error": message} with its status), and
a small JSON object whose fields are checked against a list (`json_object`)
and an uploaded game record (`record_text`). `parse_json` and `dumps` are the
only JSON reader and writer of the pages' messages: strict JSON both ways (no
NaN or Infinity, at most MAX_JSON_DEPTH levels of nesting), so bad input is
an error naming what was wrong, never a crash.
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Optional

from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse

STATIC = Path(__file__).parent / "static"
MAX_JSON_BYTES = 16_384               # a JSON request (a new game, a watched game)
MAX_RECORD_BYTES = 1_000_000          # an uploaded record (play, watch, review): 1 MB at most
MAX_JSON_DEPTH = 32                   # arrays and objects inside each other; no message needs more than 3


def is_count(text) -> bool:
    """Return whether `text` is a plain decimal count (ASCII digits: isdigit also takes '²', which int refuses)."""
    return isinstance(text, str) and re.fullmatch(r"[0-9]{1,18}", text) is not None


class BadJSON(ValueError):
    """Text that is not the strict JSON the server reads (the message says why)."""


def json_depth(text: str) -> int:
    """Return how deeply arrays and objects nest in JSON text (brackets inside strings do not count)."""
    depth = peak = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            peak = max(peak, depth)
        elif ch in "]}":
            depth -= 1
    return peak


def _not_finite(text: str):
    raise BadJSON(f"{text} is not a JSON number: only finite numbers are accepted")


def _finite_float(text: str) -> float:
    value = float(text)
    if value != value or value in (float("inf"), float("-inf")):
        _not_finite(text if len(text) <= 20 else text[:20] + "...")
    return value


def parse_json(raw):
    """Return the value of strict JSON text or bytes; BadJSON names what is wrong.

    Refused: text that is not JSON, NaN, Infinity and numbers too large for a
    float (1e999), and nesting deeper than MAX_JSON_DEPTH (checked before
    parsing: Python's parser would exhaust its recursion limit).
    """
    if isinstance(raw, (bytes, bytearray)):
        try:
            raw = bytes(raw).decode("utf-8")
        except UnicodeDecodeError:
            raise BadJSON("not JSON: the text is not UTF-8") from None
    if json_depth(raw) > MAX_JSON_DEPTH:
        raise BadJSON(f"not JSON this server reads: arrays and objects nested more than {MAX_JSON_DEPTH} deep")
    try:
        return json.loads(raw, parse_constant=_not_finite, parse_float=_finite_float)
    except BadJSON as e:
        raise BadJSON(f"not JSON: {e}") from None
    except RecursionError:                # the depth check should make this unreachable; never crash
        raise BadJSON("not JSON this server reads: nested too deeply") from None
    except ValueError as e:
        raise BadJSON(f"not JSON: {str(e)[:80]}") from None


def dumps(message) -> str:
    """Return a message as strict JSON text; one that holds NaN or Infinity becomes an error message instead."""
    try:
        return json.dumps(message, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    except ValueError:                    # never send what a browser's JSON.parse would refuse
        kind = message.get("type") if isinstance(message, dict) else None
        return json.dumps({"type": "error", "message": f"the server could not send a {kind or 'message'} "
                                                      f"message: it held a number that is not finite"})


def page(name: str) -> FileResponse:
    """Return one of the static folder's HTML pages."""
    return FileResponse(STATIC / name, media_type="text/html")


def error(status: int, message: str) -> JSONResponse:
    """Return the JSON error response {"error": message} with HTTP status `status`."""
    return JSONResponse({"error": message}, status_code=status)


async def read_limited(request: Request, limit: int) -> Optional[bytes]:
    """Return the request body, or None once it exceeds `limit` bytes (read no further)."""
    length = request.headers.get("content-length")
    if length is not None and (not is_count(length) or int(length) > limit):
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
        data = parse_json(raw or b"{}")
    except BadJSON as e:
        return None, error(400, str(e))
    if not isinstance(data, dict):
        return None, error(400, "expected a JSON object")
    unknown = set(data) - set(fields)
    if unknown:
        return None, error(400, f"unknown field(s): {', '.join(sorted(unknown))}")
    return data, None
