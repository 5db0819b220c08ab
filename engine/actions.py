"""The flat action space and its text notation (shared by every implementation).

Every atomic decision is one int, context-free: the same int means the same
thing in every state and every determinisation. The layout mirrors the
header comment of `ext/core.pxd`, the single source of truth:

    [   0,  704)  tile       colour * 176 + square
    [ 704, 1408)  leader     704 + colour * 176 + square   (place or move)
    [1408, 1412)  withdraw   1408 + colour
    [1412, 1588)  cat        1412 + square
    [1588, 3989)  swap       1588 + k + 7*r + 49*b + 343*g  (1..6 tiles)
    3989          pass
    [3990, 3997)  commit     3990 + n                       (n = 0..6)
    [3997, 4001)  war        3997 + colour                  (pick war colour)
    [4001, 5057)  monument   4001 + monument * 176 + top-left square of block
    5057          nomonument
    [5058, 5234)  treasure   5058 + square
    [5234, 5938)  building   5234 + colour * 176 + square   (variant R-VAR-BLD)
    5938          nobuilding
    [5939, 6115)  wonder     5939 + centre square            (variant R-VAR-WONDER)
    6115          nowonder
    [6116, 6120)  wonderpoint 6116 + colour                  (R-VAR-WONDER-4)

Colours: 0 black `k` (king, settlement), 1 red `r` (priest, temple),
2 blue `b` (farmer, farm), 3 green `g` (trader, market).
Monuments are the six colour pairs in this order: kr kb kg rb rg bg.
Squares: index = row * 16 + col; `a1` is col 0 row 0 (top left), `p11`
bottom right.
"""
from __future__ import annotations

from engine.boards import COLS, ROWS, SQUARES
from engine.errors import NotationError, shown

COLOURS = "krbg"
COLOUR_NAMES = ("black", "red", "blue", "green")
BLACK, RED, BLUE, GREEN = range(4)
MONUMENTS = ((0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3))

TILE_BASE = 0
LEADER_BASE = 704
WITHDRAW_BASE = 1408
CAT_BASE = 1412
SWAP_BASE = 1588
PASS = 3989
COMMIT_BASE = 3990
MAX_COMMIT = 6
WAR_BASE = 3997
MONUMENT_BASE = 4001
NO_MONUMENT = 5057
TREASURE_BASE = 5058
BUILDING_BASE = 5234
NO_BUILDING = 5938
WONDER_BASE = 5939
NO_WONDER = 6115
WONDER_POINT_BASE = 6116
NUM_ACTIONS = 6120

# the kinds by how they are written, and their ints: `<kind> <colour> <square>`,
# `<kind> <colour>`, `<kind> <square>`, `<kind>`
COLOUR_SQUARE_BASES = {"tile": TILE_BASE, "leader": LEADER_BASE, "building": BUILDING_BASE}
COLOUR_BASES = {"withdraw": WITHDRAW_BASE, "war": WAR_BASE, "wonderpoint": WONDER_POINT_BASE}
SQUARE_BASES = {"cat": CAT_BASE, "treasure": TREASURE_BASE, "wonder": WONDER_BASE}
NO_ARGUMENT = {"pass": PASS, "nomonument": NO_MONUMENT, "nobuilding": NO_BUILDING, "nowonder": NO_WONDER}

# the 2015 edition's variants (R-VAR-*), each switchable alone; the order is
# their bit order in the state (bit i = VARIANTS[i])
VARIANTS = ("english", "buildings", "wonder")


def parse_variants(text: str) -> tuple:
    """Return the variants named in `text` (comma-separated; `none` or empty: none) in VARIANTS order.

    Raises NotationError naming an unknown, repeated or empty name.
    """
    words = text.split(",")
    if words == [""] or words == ["none"]:
        return ()
    expected = f"expected a comma-separated list of {', '.join(VARIANTS)} (or none)"
    seen = []
    for w in words:
        if not w:
            raise NotationError(f"{text!r} has an empty name; {expected}")
        if w == "none":
            raise NotationError(f"'none' cannot be combined with other variants in {text!r}")
        if w not in VARIANTS:
            raise NotationError(f"unknown variant {w!r}; {expected}")
        if w in seen:
            raise NotationError(f"variant {w!r} is named twice in {text!r}")
        seen.append(w)
    return tuple(v for v in VARIANTS if v in seen)


def square_name(sq: int) -> str:
    """Return the name of a square index, e.g. 0 -> 'a1'."""
    if not 0 <= sq < SQUARES:
        raise NotationError(f"square index {sq} out of range 0..{SQUARES - 1}")
    row, col = divmod(sq, COLS)
    return f"{chr(ord('a') + col)}{row + 1}"


def parse_square(text: str) -> int:
    """Return the index of a square name such as 'f7'."""
    t = text.strip().lower()
    if len(t) < 2 or not ("a" <= t[0] <= "p") or not t[1:].isdigit():
        raise NotationError(f"bad square {text!r}: expected a column a-p and a row 1-{ROWS}")
    row = int(t[1:])
    if not 1 <= row <= ROWS:
        raise NotationError(f"bad square {text!r}: row must be 1-{ROWS}")
    return (row - 1) * COLS + (ord(t[0]) - ord("a"))


def parse_colour(text: str) -> int:
    """Return the colour index of a colour letter (k r b g)."""
    t = text.strip().lower()
    if len(t) != 1 or t not in COLOURS:
        raise NotationError(f"bad colour {text!r}: expected one of k r b g")
    return COLOURS.index(t)


def swap_action(counts) -> int:
    """Return the swap action discarding counts[c] tiles of each colour."""
    if len(counts) != 4 or any(not 0 <= n <= 6 for n in counts) or not 1 <= sum(counts) <= 6:
        raise NotationError(f"bad swap counts {list(counts)}: 1 to 6 tiles in all")
    return SWAP_BASE + counts[0] + 7 * counts[1] + 49 * counts[2] + 343 * counts[3]


def swap_counts(action: int) -> tuple:
    """Return the per-colour counts of a swap action."""
    v = action - SWAP_BASE
    return (v % 7, v // 7 % 7, v // 49 % 7, v // 343 % 7)


def monument_index(c1: int, c2: int) -> int:
    """Return the monument index of an unordered colour pair."""
    pair = (min(c1, c2), max(c1, c2))
    if pair not in MONUMENTS:
        raise NotationError(f"no monument of colours {COLOURS[c1]}{COLOURS[c2]}")
    return MONUMENTS.index(pair)


def kind(action: int) -> str:
    """Return the kind of an action: tile, leader, withdraw, cat, swap, pass, ..."""
    if isinstance(action, bool) or not isinstance(action, int) or not 0 <= action < NUM_ACTIONS:
        raise NotationError(f"action {shown(action)} outside 0..{NUM_ACTIONS - 1}")
    if action < LEADER_BASE:
        return "tile"
    if action < WITHDRAW_BASE:
        return "leader"
    if action < CAT_BASE:
        return "withdraw"
    if action < SWAP_BASE:
        return "cat"
    if action < PASS:
        c = swap_counts(action)
        if not 1 <= sum(c) <= 6:
            raise NotationError(f"action {action} is not a valid swap (1..6 tiles)")
        return "swap"
    if action == PASS:
        return "pass"
    if action < WAR_BASE:
        return "commit"
    if action < MONUMENT_BASE:
        return "war"
    if action < NO_MONUMENT:
        return "monument"
    if action == NO_MONUMENT:
        return "nomonument"
    if action < BUILDING_BASE:
        return "treasure"
    if action < NO_BUILDING:
        return "building"
    if action == NO_BUILDING:
        return "nobuilding"
    if action < NO_WONDER:
        return "wonder"
    if action == NO_WONDER:
        return "nowonder"
    return "wonderpoint"


def format_action(action: int) -> str:
    """Format an action int as text, e.g. 'tile r f7'."""
    k = kind(action)
    if k in COLOUR_SQUARE_BASES:
        c, sq = divmod(action - COLOUR_SQUARE_BASES[k], SQUARES)
        return f"{k} {COLOURS[c]} {square_name(sq)}"
    if k in COLOUR_BASES:
        return f"{k} {COLOURS[action - COLOUR_BASES[k]]}"
    if k in SQUARE_BASES:
        return f"{k} {square_name(action - SQUARE_BASES[k])}"
    if k in NO_ARGUMENT:
        return k
    if k == "swap":
        return "swap " + "".join(COLOURS[c] * n for c, n in enumerate(swap_counts(action)))
    if k == "commit":
        return f"commit {action - COMMIT_BASE}"
    m, sq = divmod(action - MONUMENT_BASE, SQUARES)          # monument
    a, b = MONUMENTS[m]
    return f"monument {COLOURS[a]}{COLOURS[b]} {square_name(sq)}"


def parse_action(text: str) -> int:
    """Parse action text such as 'leader k g8' into its int; raise NotationError."""
    if not isinstance(text, str):
        raise NotationError(f"action text must be a string, got {type(text).__name__}")
    words = text.strip().lower().split()
    if not words:
        raise NotationError("empty action")
    verb, args = words[0], words[1:]

    def need(n: int) -> None:
        if len(args) != n:
            raise NotationError(f"{verb!r} takes {n} argument(s), got {len(args)}: {text!r}")

    if verb in COLOUR_SQUARE_BASES:
        need(2)
        return COLOUR_SQUARE_BASES[verb] + parse_colour(args[0]) * SQUARES + parse_square(args[1])
    if verb in COLOUR_BASES:
        need(1)
        return COLOUR_BASES[verb] + parse_colour(args[0])
    if verb in SQUARE_BASES:
        need(1)
        return SQUARE_BASES[verb] + parse_square(args[0])
    if verb in NO_ARGUMENT:
        need(0)
        return NO_ARGUMENT[verb]
    if verb == "swap":
        need(1)
        counts = [0, 0, 0, 0]
        for ch in args[0]:
            counts[parse_colour(ch)] += 1
        return swap_action(counts)
    if verb == "commit":
        need(1)
        if not args[0].isdigit() or int(args[0]) > MAX_COMMIT:
            raise NotationError(f"bad commit count {args[0]!r}: expected 0-{MAX_COMMIT}")
        return COMMIT_BASE + int(args[0])
    if verb == "monument":
        need(2)
        if len(args[0]) != 2:
            raise NotationError(f"bad monument {args[0]!r}: expected two colour letters, e.g. rk")
        m = monument_index(parse_colour(args[0][0]), parse_colour(args[0][1]))
        return MONUMENT_BASE + m * SQUARES + parse_square(args[1])
    raise NotationError(f"unknown action verb {verb!r} in {text!r}")
