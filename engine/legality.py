"""Why a decision is illegal: the one source of the reasons every surface shows.

`why_illegal(position, action)` returns None for a legal decision of the seat
to act, else one specific sentence naming squares in notation, e.g.
"b2 holds a temple", "a1 is a river square: only blue tiles go there",
"a leader on f7 would join two kingdoms (R-LEAD-3)". `position` is a full
snapshot or the acting seat's observation (engine.info): legality needs only
the public board and that seat's hand. `State.apply`'s IllegalActionError,
game records, `tne-ai play`, the protocol, the browser page and the referees'
forfeits all word an illegal decision with it.

`conflict_bases(position)` gives the base strengths of the pending revolt or
war (R-REV-2: temples beside each leader; R-WAR-3: supporters on each side of
the unification tile), from the public board alone: the English
commitments' legality here, the prompts of the human seat (tne_ai.prompts)
and the greedy player (search.baselines) all read them from it.

The rules are those of docs/rules.md (rule ids cited in the reasons) as the legal
generator applies them; tests/test_legality.py checks on random positions
that a reason is given exactly for the actions legal_actions() leaves out.
"""
from __future__ import annotations

from typing import Optional

from engine import actions as A
from engine.boards import COLS, ROWS, SQUARES, load_board, neighbours
from engine.errors import EngineError, shown
from engine.position import CONFLICT_PHASES, check_snapshot, known_hand

EMPTY, FACE_UP, FACE_DOWN, CATASTROPHE, WONDER = 0, 1, 5, 9, 10
TEMPLE = FACE_UP + A.RED
LEADER_NAMES = ("king", "priest", "farmer", "trader")
TILE_NAMES = ("settlement", "temple", "farm", "market")
NUMBERS = ("no", "one", "two", "three", "four")
NEIGHBOURS = tuple(tuple(neighbours(sq)) for sq in range(SQUARES))

# how a kind of decision is named in "... is not a choice now"
KIND_NOUNS = {"tile": "a tile", "leader": "a leader", "withdraw": "a withdrawal", "cat": "a catastrophe",
              "swap": "a swap", "pass": "'pass'", "commit": "a commitment", "war": "a war colour",
              "monument": "a monument", "nomonument": "'nomonument'", "treasure": "a treasure",
              "building": "a building", "nobuilding": "'nobuilding'", "wonder": "the wonder",
              "nowonder": "'nowonder'", "wonderpoint": "a wonder point"}
# the kinds each phase offers (the others are "not a choice now")
PHASE_KINDS = {"action": ("tile", "leader", "withdraw", "cat", "swap", "pass"),
               "revolt_attack": ("commit",), "revolt_defend": ("commit",),
               "war_attack": ("commit",), "war_defend": ("commit",),
               "war_choice": ("war",), "monument": ("monument", "nomonument"),
               "treasure": ("treasure",), "building": ("building", "nobuilding"),
               "wonder": ("wonder", "nowonder"), "wonder_point": ("wonderpoint",), "over": ()}


def why_illegal(position: dict, action) -> Optional[str]:
    """Return why `action` is not legal for the seat to act in a snapshot or observation, None if it is legal."""
    return Judge(position).why(action)


def temples_beside(cells, sq: int) -> int:
    """Return the face-up red tiles edge-adjacent to a square (a revolt's base strength, R-REV-2)."""
    return sum(1 for n in NEIGHBOURS[sq] if cells[n] == TEMPLE)


def side_supporters(cells, leader_squares, start: int, hole: int, colour: int) -> int:
    """Return face-up tiles of `colour` connected to `start` with square `hole` treated as empty (R-WAR-3).

    Tiles face up or down, the wonder and the squares in `leader_squares` connect (R-KING-1).
    """
    seen = {start, hole}
    stack = [start]
    count = 0
    up = FACE_UP + colour
    while stack:
        sq = stack.pop()
        for n in NEIGHBOURS[sq]:
            if n in seen:
                continue
            v = cells[n]
            if (v != EMPTY and v != CATASTROPHE) or n in leader_squares:
                seen.add(n)
                stack.append(n)
                if v == up:
                    count += 1
    return count


def conflict_bases(position: dict) -> tuple:
    """Return (attacker base, defender base) strengths of the pending conflict of a snapshot or observation."""
    cf = position["conflict"]
    cells = position["cells"]
    if cf["kind"] == "revolt":
        return temples_beside(cells, cf["attacker_leader"]), temples_beside(cells, cf["defender_leader"])
    lsq = {sq for row in position["leaders"] for sq in row if sq >= 0}
    hole = position["unification"]
    c = cf["colour"]
    return (side_supporters(cells, lsq, cf["attacker_leader"], hole, c),
            side_supporters(cells, lsq, cf["defender_leader"], hole, c))


def _name(sq: int) -> str:
    return A.square_name(sq)


def _names(squares) -> str:
    return ", ".join(_name(q) for q in sorted(squares))


def _tiles(n: int, colour: int) -> str:
    return f"{n if n else 'no'} {A.COLOUR_NAMES[colour]} tile{'' if n == 1 else 's'}"


def _face_up_colour(value: int):
    return value - FACE_UP if FACE_UP <= value < FACE_DOWN else None


class Judge:
    """The legality reasons of one position (its kingdoms computed once, for many questions)."""

    def __init__(self, position: dict):
        """Read a full snapshot or an observation (PositionError if malformed)."""
        check_snapshot(position)
        self.snap = position
        self.board = load_board(position["board"])
        self.cells = position["cells"]
        self.phase = position["phase"]
        self.actor = position["to_act"]
        self.variants = position["variants"]
        self.treasures = set(position["treasures"])
        self.leader_at = {sq: (s, c) for s, row in enumerate(position["leaders"])
                          for c, sq in enumerate(row) if sq >= 0}
        self._labels = {}          # lifted leader square (-1: none) -> (label per square, kingdom labels)

    # ------------------------------------------------------------ the question

    def why(self, action) -> Optional[str]:
        """Return why `action` is not legal now, None if it is."""
        if isinstance(action, bool):
            return f"action must be an int, got {action!r}"
        try:
            kind = A.kind(action)
        except A.NotationError:
            if isinstance(action, int):
                return f"action {shown(action)} does not exist (0..{A.NUM_ACTIONS - 1})"
            return f"action must be an int, got {shown(action)}"
        if self.phase == "over":
            return "the game is over"
        if kind not in PHASE_KINDS[self.phase]:
            return f"{KIND_NOUNS[kind]} is not a choice now: {self.choices()}"
        return getattr(self, f"_{kind}")(action)

    def choices(self) -> str:
        """Return what the seat to act may decide now, in words."""
        p = self.phase
        if p == "action":
            return "the choices are an action (tile, leader, withdraw, cat, swap) or pass"
        if p in CONFLICT_PHASES:
            colour, allowed = self._commit_options()
            return f"the choices are {self._commit_text(allowed)} ({A.COLOUR_NAMES[colour]} tiles)"
        if p == "war_choice":
            options = [f"war {A.COLOURS[c]}" for c in self._war_colours()]
        elif p == "monument":
            options = [A.format_action(a) for a in self._monument_options()] + ["nomonument"]
        elif p == "treasure":
            options = [f"treasure {_name(q)}" for q in self._treasure_choice()[1]]
        elif p == "building":
            options = [A.format_action(a) for a in self._building_options()] + ["nobuilding"]
        elif p == "wonder":
            options = [f"wonder {_name(q)}" for q in self._wonder_centres()] + ["nowonder"]
        else:
            options = [f"wonderpoint {c}" for c in A.COLOURS]
        return "the choices are " + ", ".join(options)

    # ------------------------------------------------------------ geometry

    def _hand(self) -> list:
        hand = known_hand(self.snap, self.actor)
        if hand is None:
            raise EngineError(f"the hand of seat {self.actor} (to act) is unknown: legality needs a full "
                              f"snapshot or that seat's observation")
        return hand

    def _whose(self, seat: int) -> str:
        return "your" if seat == self.actor else f"seat {seat}'s"

    def _holds(self, sq: int) -> Optional[str]:
        """Return what stands on a square ('a temple', "seat 1's king", ...), None if it is empty."""
        if sq in self.leader_at:
            seat, c = self.leader_at[sq]
            return f"{self._whose(seat)} {LEADER_NAMES[c]}"
        v = self.cells[sq]
        if v == EMPTY:
            return None
        if v == CATASTROPHE:
            return "a catastrophe"
        if v == WONDER:
            return "the wonder"
        if v >= FACE_DOWN:
            return "a monument"
        return f"a {TILE_NAMES[v - FACE_UP]}"

    def _kingdoms(self, lifted: int = -1):
        """Return (label per connected square, the labels of kingdoms), with the leader on `lifted` lifted."""
        if lifted not in self._labels:
            leaders = {q for q in self.leader_at if q != lifted}
            connects = {q for q, v in enumerate(self.cells) if FACE_UP <= v < CATASTROPHE or v == WONDER}
            connects |= leaders
            label, kingdoms = {}, set()
            for n, start in enumerate(connects):
                if start in label:
                    continue
                todo, has_leader = [start], False
                label[start] = n
                while todo:
                    q = todo.pop()
                    has_leader |= q in leaders
                    for m in NEIGHBOURS[q]:
                        if m in connects and m not in label:
                            label[m] = n
                            todo.append(m)
                if has_leader:
                    kingdoms.add(n)
            self._labels[lifted] = (label, kingdoms)
        return self._labels[lifted]

    def _kingdoms_beside(self, sq: int, lifted: int = -1) -> int:
        label, kingdoms = self._kingdoms(lifted)
        return len({label[n] for n in NEIGHBOURS[sq] if n in label and label[n] in kingdoms})

    def _group(self, start: int, blocked: int = -1) -> set:
        """Return the squares connected to `start` (tiles, the wonder, leaders), `blocked` treated as empty."""
        connects = {q for q, v in enumerate(self.cells) if FACE_UP <= v < CATASTROPHE or v == WONDER}
        connects |= set(self.leader_at)
        connects.discard(blocked)
        if start not in connects:
            return set()
        seen, todo = {start}, [start]
        while todo:
            q = todo.pop()
            for m in NEIGHBOURS[q]:
                if m in connects and m not in seen:
                    seen.add(m)
                    todo.append(m)
        return seen

    def _temples_beside(self, sq: int) -> int:
        return temples_beside(self.cells, sq)

    def _placed_colour(self):
        sq = self.snap["placed"]
        return None if sq < 0 else _face_up_colour(self.cells[sq])

    # ------------------------------------------------------------ the action phase

    def _tile(self, action: int) -> Optional[str]:
        c, sq = divmod(action - A.TILE_BASE, SQUARES)
        if self._hand()[c] == 0:
            return f"you hold no {A.COLOUR_NAMES[c]} tile"
        held = self._holds(sq)
        if held:
            return f"{_name(sq)} holds {held}"
        river = self.board.is_river(sq)
        if river and c != A.BLUE:
            return f"{_name(sq)} is a river square: only blue tiles go there (R-TILE-1)"
        if c == A.BLUE and not river:
            return f"{_name(sq)} is land: a blue tile goes only on a river square (R-TILE-1)"
        n = self._kingdoms_beside(sq)
        if n > 2:
            return f"a tile on {_name(sq)} would join {NUMBERS[n]} kingdoms: two at most (R-TILE-2)"
        return None

    def _leader(self, action: int) -> Optional[str]:
        c, sq = divmod(action - A.LEADER_BASE, SQUARES)
        current = self.snap["leaders"][self.actor][c]
        if sq == current:
            return f"your {LEADER_NAMES[c]} already stands on {_name(sq)}"
        held = self._holds(sq)
        if held:
            return f"{_name(sq)} holds {held}"
        if self.board.is_river(sq):
            return f"{_name(sq)} is a river square: a leader goes only on land (R-LEAD-2)"
        if self._temples_beside(sq) == 0:
            return f"a leader must stand beside a temple: {_name(sq)} touches none (R-LEAD-2)"
        n = self._kingdoms_beside(sq, current)
        if n > 1:
            return f"a leader on {_name(sq)} would join {NUMBERS[n]} kingdoms (R-LEAD-3)"
        return None

    def _withdraw(self, action: int) -> Optional[str]:
        c = action - A.WITHDRAW_BASE
        if self.snap["leaders"][self.actor][c] < 0:
            return f"your {LEADER_NAMES[c]} is not on the board: there is nothing to withdraw"
        return None

    def _cat(self, action: int) -> Optional[str]:
        sq = action - A.CAT_BASE
        if self.snap["catastrophes_left"][self.actor] == 0:
            return "you have no catastrophe tile left (two per player, R-COMP-3)"
        if sq in self.leader_at:
            return f"{_name(sq)} holds {self._holds(sq)}: a catastrophe never goes on a leader (R-CAT-1)"
        if sq in self.treasures:
            return f"{_name(sq)} holds a treasure: a catastrophe never goes on one (R-CAT-1)"
        if sq in self.snap["buildings"]:
            c = self.snap["buildings"].index(sq)
            return (f"{_name(sq)} holds the {A.COLOUR_NAMES[c]} building: a catastrophe never removes "
                    f"the tile under it (R-VAR-BLD-5)")
        v = self.cells[sq]
        if v == WONDER:
            return f"{_name(sq)} holds the wonder: it cannot take a catastrophe (R-VAR-WONDER-2)"
        if v == CATASTROPHE or v >= FACE_DOWN:
            return f"{_name(sq)} holds {self._holds(sq)} (R-CAT-1)"
        return None

    def _swap(self, action: int) -> Optional[str]:
        hand = self._hand()
        for c, n in enumerate(A.swap_counts(action)):
            if n > hand[c]:
                held = f"only {_tiles(hand[c], c)}" if hand[c] else _tiles(0, c)
                return f"{A.format_action(action)!r} gives away {_tiles(n, c)}: you hold {held} (R-SWAP-1)"
        return None

    def _pass(self, action: int) -> Optional[str]:
        return None

    # ------------------------------------------------------------ conflicts

    def _bases(self) -> tuple:
        """Return the (attacker, defender) base strengths of the pending conflict (R-REV-2, R-WAR-3)."""
        return conflict_bases(self.snap)

    def _commit_options(self) -> tuple:
        """Return (the colour committed, the allowed counts) of the pending conflict."""
        cf = self.snap["conflict"]
        colour = A.RED if cf["kind"] == "revolt" else cf["colour"]
        held = self._hand()[colour]
        if "english" not in self.variants:
            return colour, list(range(held + 1))
        need = self._english_need()
        return colour, [0] + ([need] if 1 <= need <= held else [])

    def _english_need(self) -> int:
        """Return the exact commitment R-VAR-ENGLISH allows besides 0 (to win as attacker, to tie as defender)."""
        attack, defence = self._bases()
        if self.phase.endswith("attack"):
            return defence - attack + 1
        return attack + self.snap["conflict"]["attacker_commit"] - defence

    def _commit_text(self, allowed: list) -> str:
        if len(allowed) == 1:
            return "commit 0"
        if "english" in self.variants:
            return " or ".join(f"commit {n}" for n in allowed)
        return f"commit 0 to {allowed[-1]}"

    def _commit(self, action: int) -> Optional[str]:
        n = action - A.COMMIT_BASE
        colour, allowed = self._commit_options()
        if n in allowed:
            return None
        held = self._hand()[colour]
        if "english" not in self.variants:
            have = f"only {_tiles(held, colour)}" if held else _tiles(0, colour)
            return f"you hold {have}: {self._commit_text(allowed)}"
        need = self._english_need()
        attacking = self.phase.endswith("attack")
        goal = "beat the defender" if attacking else "tie the attacker"
        if need < 1:
            why = f"you {goal} without tiles"
        elif need > held:
            why = f"to {goal} takes {_tiles(need, colour)} and you hold {held}"
        else:
            why = f"exactly {need} to {goal}, or none"
        return f"English commitments (R-VAR-ENGLISH): {self._commit_text(allowed)} ({why})"

    def _war_colours(self) -> list:
        """Return the colours with two leaders in the unified kingdom (R-WAR-1)."""
        u = self.snap["unification"]
        group = self._group(u) if u >= 0 else set()
        counts = [0] * 4
        for q in group:
            if q in self.leader_at:
                counts[self.leader_at[q][1]] += 1
        return [c for c in range(4) if counts[c] >= 2]

    def _war(self, action: int) -> Optional[str]:
        c = action - A.WAR_BASE
        colours = self._war_colours()
        if c in colours:
            return None
        return (f"the unified kingdom does not hold two {LEADER_NAMES[c]}s (R-WAR-1): the choices are "
                + ", ".join(f"war {A.COLOURS[x]}" for x in colours))

    # ------------------------------------------------------------ monuments, treasures, variants

    def _monument_options(self) -> list:
        placed, colour = self.snap["placed"], self._placed_colour()
        if colour is None:
            return []
        out = []
        row, col = divmod(placed, COLS)
        for top in (row - 1, row):
            for left in (col - 1, col):
                if 0 <= top <= ROWS - 2 and 0 <= left <= COLS - 2:
                    tl = top * COLS + left
                    if all(self.cells[q] == FACE_UP + colour for q in (tl, tl + 1, tl + COLS, tl + COLS + 1)):
                        out += [A.MONUMENT_BASE + m * SQUARES + tl for m, pair in enumerate(A.MONUMENTS)
                                if colour in pair and self.snap["monuments"][m] < 0]
        return sorted(out)

    def _monument(self, action: int) -> Optional[str]:
        m, tl = divmod(action - A.MONUMENT_BASE, SQUARES)
        pair = "".join(A.COLOURS[c] for c in A.MONUMENTS[m])
        row, col = divmod(tl, COLS)
        if row == ROWS - 1 or col == COLS - 1:
            return f"{_name(tl)} cannot be the top-left square of a 2x2 block"
        if self.snap["monuments"][m] >= 0:
            return f"the {pair} monument already stands on {_name(self.snap['monuments'][m])} (R-MON-1)"
        placed, colour = self.snap["placed"], self._placed_colour()
        block = (tl, tl + 1, tl + COLS, tl + COLS + 1)
        if placed not in block:
            return (f"the block {_name(tl)}-{_name(block[3])} does not hold the tile just placed on "
                    f"{_name(placed)} (R-MON-1)")
        if any(self.cells[q] != FACE_UP + colour for q in block):
            return (f"the block {_name(tl)}-{_name(block[3])} is not four face-up "
                    f"{A.COLOUR_NAMES[colour]} tiles (R-MON-1)")
        if colour not in A.MONUMENTS[m]:
            return f"the {pair} monument has no {A.COLOUR_NAMES[colour]}: the block is {A.COLOUR_NAMES[colour]} (R-MON-1)"
        return None

    def _nomonument(self, action: int) -> Optional[str]:
        return None

    def _treasure_choice(self) -> tuple:
        """Return (the seat whose trader takes a treasure now, the squares it may take) (R-TRE-1)."""
        for seat, row in enumerate(self.snap["leaders"]):
            if row[A.GREEN] < 0:
                continue
            here = self._group(row[A.GREEN]) & self.treasures
            if len(here) >= 2:
                special = {q for q in here if q in self.board.special}
                return seat, sorted(special or here)
        return -1, []

    def _treasure(self, action: int) -> Optional[str]:
        sq = action - A.TREASURE_BASE
        seat, candidates = self._treasure_choice()
        if sq in candidates:
            return None
        if sq not in self.treasures:
            return f"{_name(sq)} holds no treasure"
        trader = self.snap["leaders"][seat][A.GREEN] if seat >= 0 else -1
        if trader < 0 or sq not in self._group(trader):
            where = f" on {_name(trader)}" if trader >= 0 else ""
            return (f"the treasure on {_name(sq)} is not in the kingdom of {self._whose(seat)} trader{where}, "
                    f"which takes treasures now: the choices are {_names(candidates)} (R-TRE-1)")
        return (f"the treasures on special squares go first: {_names(candidates)}, not {_name(sq)} "
                f"(R-TRE-1)")

    def _lines(self) -> tuple:
        """Return ({square: length of the longest new line of 3+ through the placed tile}, length of the building's line)."""
        placed, colour = self.snap["placed"], self._placed_colour()
        length = {}
        for step in (1, COLS):
            line = self._run(placed, step)
            if len(line) >= 3:
                for q in line:
                    length[q] = max(length.get(q, 0), len(line))
        where = self.snap["buildings"][colour]
        old = 0 if where < 0 else max(len(self._run(where, 1)), len(self._run(where, COLS)))
        return length, old

    def _run(self, sq: int, step: int) -> list:
        """Return the straight line (step 1: along the row, COLS: along the column) of squares holding sq's tile."""
        row, col = divmod(sq, COLS)
        dr, dc = (0, 1) if step == 1 else (1, 0)
        out = [sq]
        for sign in (-1, 1):
            r, c = row + sign * dr, col + sign * dc
            while 0 <= r < ROWS and 0 <= c < COLS and self.cells[r * COLS + c] == self.cells[sq]:
                out.append(r * COLS + c)
                r, c = r + sign * dr, c + sign * dc
        return sorted(out)

    def _building_options(self) -> list:
        colour = self._placed_colour()
        if colour is None or "buildings" not in self.variants:
            return []
        length, old = self._lines()
        return [A.BUILDING_BASE + colour * SQUARES + q for q in sorted(length) if length[q] > old]

    def _building(self, action: int) -> Optional[str]:
        c, sq = divmod(action - A.BUILDING_BASE, SQUARES)
        colour, placed = self._placed_colour(), self.snap["placed"]
        if colour is None:
            return "no tile was just placed (R-VAR-BLD-2)"
        name = A.COLOUR_NAMES[colour]
        if c != colour:
            return (f"only the {name} building can go up now: the tile just placed on {_name(placed)} "
                    f"is {name} (R-VAR-BLD-2)")
        length, old = self._lines()
        if sq not in length:
            return (f"{_name(sq)} is not on the new line of three or more {name} tiles through "
                    f"{_name(placed)} (R-VAR-BLD-2)")
        if length[sq] <= old:
            where = _name(self.snap["buildings"][colour])
            return (f"the {name} building stands on a line of {old} at {where}: it moves only to a longer "
                    f"line, and the line through {_name(sq)} has {length[sq]} (R-VAR-BLD-2)")
        return None

    def _nobuilding(self, action: int) -> Optional[str]:
        return None

    def _wonder_centres(self) -> list:
        placed, colour = self.snap["placed"], self._placed_colour()
        if colour is None or "wonder" not in self.variants or self.snap["wonder"] >= 0:
            return []
        return [q for q in sorted((placed,) + NEIGHBOURS[placed]) if self._cross_of(q, colour)]

    def _cross_of(self, centre: int, colour: int) -> bool:
        return (len(NEIGHBOURS[centre]) == 4
                and all(self.cells[q] == FACE_UP + colour for q in (centre,) + NEIGHBOURS[centre]))

    def _wonder(self, action: int) -> Optional[str]:
        centre = action - A.WONDER_BASE
        placed, colour = self.snap["placed"], self._placed_colour()
        if colour is None:
            return "no tile was just placed (R-VAR-WONDER-1)"
        if centre != placed and centre not in NEIGHBOURS[placed]:
            return (f"the wonder's cross must hold the tile just placed on {_name(placed)}: a cross centred "
                    f"on {_name(centre)} does not (R-VAR-WONDER-1)")
        if len(NEIGHBOURS[centre]) != 4:
            return f"{_name(centre)} is on the edge of the board: a cross needs all four neighbours (R-VAR-WONDER-1)"
        if not self._cross_of(centre, colour):
            return (f"the cross centred on {_name(centre)} is not five face-up {A.COLOUR_NAMES[colour]} tiles "
                    f"(R-VAR-WONDER-1)")
        return None

    def _nowonder(self, action: int) -> Optional[str]:
        return None

    def _wonderpoint(self, action: int) -> Optional[str]:
        return None
