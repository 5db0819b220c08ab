"""Typed errors of the rules engine: every bad input names what was wrong."""


class EngineError(ValueError):
    """Base class of every error the rules engine raises on bad input."""


class IllegalActionError(EngineError):
    """Raise when an action is not legal in the current state (state unchanged)."""


class NotationError(EngineError):
    """Raise when an action's text notation cannot be parsed."""


class PositionError(EngineError):
    """Raise when a position string or snapshot is malformed; names the field."""


class RecordError(EngineError):
    """Raise when a game record is malformed or does not replay; names the line."""


class BoardError(EngineError):
    """Raise when a board file is malformed."""


class ConsistencyError(EngineError):
    """Raise when check_consistency() finds a broken invariant."""


def shown(value) -> str:
    """Return a short one-line repr of a bad value (a huge int as its size: str() of it may fail)."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 128:
        return f"{'-' if value < 0 else ''}<int of {value.bit_length()} bits>"
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 - a repr that fails must not hide the real error
        text = f"<{type(value).__name__}>"
    text = " ".join(text.split())
    return text if len(text) <= 80 else text[:77] + "..."
