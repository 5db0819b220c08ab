"""The Tigris & Euphrates rules engine: State, actions, notation, boards.

>>> from engine import new_game
>>> s = new_game(players=2, seed=1)
>>> s.phase, s.to_act in (0, 1)
('action', True)
"""
from engine.errors import (BoardError, ConsistencyError, EngineError, IllegalActionError,
                           NotationError, PositionError, RecordError)
from engine.actions import format_action, parse_action
from engine.state import State, new_game, perft, rank_scores

__all__ = ["State", "new_game", "perft", "rank_scores", "format_action", "parse_action",
           "EngineError", "IllegalActionError", "NotationError", "PositionError",
           "RecordError", "BoardError", "ConsistencyError"]
