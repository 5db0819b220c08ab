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
