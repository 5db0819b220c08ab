"""What a seat is asked to decide, in words: shared by terminal play and the web app.

`decision_prompt(obs, seat, legal)` says, from the seat's observation alone
(engine.info, R-INFO-1) and its legal decisions, what the seat to act must
decide now: an action of its turn, a revolt or war commitment (with both
sides' base strengths, engine.legality.conflict_bases, and what the English
commitments allow when that variant is on), which war comes first, a
monument, a treasure, and with the 2015 variants a building, the wonder or
a wonder point's colour. `tne-ai play` prints it before each of the human's
decisions (tne_ai/cli/play.py) and the browser page shows it as the state
message's `prompt` (tne_ai/web/games.py).

`conflict_outcome(before, action, after)` says how a revolt or war ended once
its defender committed: who attacked whom over which colour, both strengths,
who won, what left the board and the points scored. All of it is public;
`tne-ai play` prints it and the browser page shows it in its move list.
"""
from __future__ import annotations

from engine import actions as A
from engine.boards import SQUARES
from engine.legality import conflict_bases


def square(sq: int) -> str:
    """Return a square's name, '-' for none."""
    return A.square_name(sq) if sq >= 0 else "-"


def plural(n: int, noun: str) -> str:
    """Return a count with its noun, plural unless the count is 1 ('1 temple', '3 temples')."""
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _squares(options: list) -> str:
    """Return squares as names separated by commas."""
    return ", ".join(square(sq) for sq in options)


def english_commit(obs: dict, legal: list) -> str:
    """Return what the English commitments (variant) allow in this revolt or war commitment."""
    counts = sorted(a - A.COMMIT_BASE for a in legal if A.kind(a) == "commit")
    cf = obs["conflict"]
    base_a, base_d = conflict_bases(obs)
    if obs["phase"].endswith("attack"):
        need, goal = base_d - base_a + 1, "to beat the defender's strength"
    else:
        need, goal = base_a + cf["attacker_commit"] - base_d, "to tie the attacker (a tie goes to you)"
    if need <= 0:
        return ("English commitments: you are strong enough without tiles, so 'commit 0' is the only "
                "choice.")
    if need in counts:
        return f"English commitments: commit exactly {need} ({goal}) or 0, nothing in between."
    return (f"English commitments: you would need exactly {need} {goal} and do not hold them, so "
            f"'commit 0' is the only choice.")


def decision_prompt(obs: dict, seat: int, legal: list = ()) -> str:
    """Return what `seat` (to act) is being asked to decide, from its observation (and its legal decisions)."""
    phase, cf = obs["phase"], obs["conflict"]
    hand = obs["hand"]
    variants = obs.get("variants") or []
    if phase == "action":
        return (f"Your turn (seat {seat}), action {3 - obs['actions_left']} of 2: place a tile or a "
                f"leader, withdraw a leader, play a catastrophe, swap tiles, or pass.")
    if phase in ("revolt_attack", "revolt_defend", "war_attack", "war_defend"):
        base_a, base_d = conflict_bases(obs)
        colour = A.COLOUR_NAMES[cf["colour"]]
        c = A.RED if cf["kind"] == "revolt" else cf["colour"]
        tiles = A.COLOUR_NAMES[c]
        noun, where = ("temple", "beside it") if cf["kind"] == "revolt" else ("supporter", "in its kingdom")
        head = (f"{cf['kind'].capitalize()} over the {colour} leader: seat {cf['attacker']}'s leader at "
                f"{square(cf['attacker_leader'])} ({plural(base_a, noun)} {where}) attacks seat "
                f"{cf['defender']}'s at {square(cf['defender_leader'])} ({base_d}).")
        english = (" " + english_commit(obs, legal)) if "english" in variants else ""
        if phase.endswith("attack"):
            return (f"{head} You attack: commit {tiles} tiles from your hand (you hold {hand[c]}). "
                    f"The defender commits next; the higher total wins, a tie goes to the defender; "
                    f"committed tiles are lost.{english}")
        total = base_a + cf["attacker_commit"]
        need = max(0, total - base_d)
        return (f"{head} You defend: the attacker committed {cf['attacker_commit']} (total {total}). "
                f"Commit {tiles} tiles (you hold {hand[c]}): {need} or more keep your leader (a tie "
                f"goes to you); committed tiles are lost.{english}")
    if phase == "war_choice":
        return ("Your tile joined two kingdoms holding two leaders of the same colour: choose which "
                "war is fought first (the others follow).")
    if phase == "monument":
        return (f"Your tile at {square(obs['placed'])} completed a 2x2 block of one colour: build a "
                f"monument of that colour on it (its tiles turn face down), or 'nomonument'.")
    if phase == "treasure":
        return ("Your trader's kingdom holds more than one treasure: choose the treasure to take "
                "(special squares, marked $, must be taken first).")
    if phase == "building":
        options = [(a - A.BUILDING_BASE) % SQUARES for a in legal if A.kind(a) == "building"]
        c = (legal[0] - A.BUILDING_BASE) // SQUARES if options else None
        colour = A.COLOUR_NAMES[c] if c is not None else "that"
        where = obs["buildings"][c] if c is not None else -1
        source = (f"move it from {square(where)} (where it stands on a shorter line)" if where >= 0
                  else "take it from the supply")
        return (f"Your tile at {square(obs['placed'])} made a line of 3 or more {colour} tiles: you may put "
                f"the {colour} building on one of its squares ({_squares(options)}; 'building "
                f"{A.COLOURS[c] if c is not None else 'c'} SQ') and {source}, or 'nobuilding'. While it stands, "
                f"a {colour} tile that scores in its kingdom scores 2 points instead of 1, and a war never "
                f"removes the tile under it.")
    if phase == "wonder":
        options = [a - A.WONDER_BASE for a in legal if A.kind(a) == "wonder"]
        colour = A.COLOUR_NAMES[obs["cells"][obs["placed"]] - 1] if obs["placed"] >= 0 else "one colour's"
        return (f"Your tile at {square(obs['placed'])} completed a cross of five {colour} tiles: you may build "
                f"the wonder centred on {_squares(options)} ('wonder SQ'; there is only one, and it "
                f"stays for the game) or 'nowonder'. The five tiles leave the game; the wonder joins "
                f"kingdoms like tiles, and at the end of each turn of a player whose king is in its kingdom "
                f"that player scores 1 point of a colour of their choice.")
    if phase == "wonder_point":
        return ("End of your turn with your king in the wonder's kingdom: choose the colour of your wonder "
                "point ('wonderpoint k', 'wonderpoint r', 'wonderpoint b' or 'wonderpoint g').")
    return f"Phase {phase}: choose a decision."


def _who(seat: int, human) -> str:
    """Return 'seat N', or 'seat N (you)' for the human's seat."""
    return f"seat {seat} (you)" if seat == human else f"seat {seat}"


def _whose(seat: int, human) -> str:
    """Return "seat N's", or 'your' for the human's seat."""
    return "your" if seat == human else f"seat {seat}'s"


def _strength(base: int, commit: int, what: str) -> str:
    """Return a side's strength in words, e.g. '2 temples + 1 committed = 3'."""
    return f"{base} {what}{'' if base == 1 else 's'} + {commit} committed = {base + commit}"


def conflict_outcome(before: dict, action: int, after: dict, human=None) -> str:
    """Return how the revolt or war that `action` (the defender's commitment) resolved, in words; '' otherwise.

    `before` and `after` are the snapshots (full, public or observations)
    around the decision; `human` names that seat "(you)". A war's resolution
    may start the next war at once: only the conflict of `before` is told.
    """
    cf = before.get("conflict")
    if cf is None or before["phase"] not in ("revolt_defend", "war_defend") or A.kind(action) != "commit":
        return ""
    base_a, base_d = conflict_bases(before)
    commit_a, commit_d = cf["attacker_commit"], action - A.COMMIT_BASE
    attack, defence = base_a + commit_a, base_d + commit_d
    winner = cf["attacker"] if attack > defence else cf["defender"]
    colour = A.COLOUR_NAMES[cf["colour"]]
    what = "temple" if cf["kind"] == "revolt" else "supporter"
    text = (f"{cf['kind'].capitalize()} over the {colour} leader: {_who(cf['attacker'], human)} attacked from "
            f"{square(cf['attacker_leader'])} with {_strength(base_a, commit_a, what)}, "
            f"{_who(cf['defender'], human)} defended at {square(cf['defender_leader'])} with "
            f"{_strength(base_d, commit_d, what)}: "
            f"{'a tie goes to the defender, so ' if attack == defence else ''}{_who(winner, human)} wins.")
    # what left the board: the loser's leader, a war's tiles of its colour, leaders left without a temple
    gone = []
    for s, (was, now) in enumerate(zip(before["leaders"], after["leaders"])):
        for c, (a, b) in enumerate(zip(was, now)):
            if a >= 0 and b < 0:
                gone.append(f"{_whose(s, human)} {A.COLOUR_NAMES[c]} leader at {square(a)}")
    tiles = [sq for sq, (a, b) in enumerate(zip(before["cells"], after["cells"])) if 1 <= a <= 4 and b == 0]
    if tiles:
        gone.append(f"{len(tiles)} {colour} tile{'s' if len(tiles) > 1 else ''} ({_squares(tiles)})")
    if gone:
        text += " Removed: " + ", ".join(gone) + "."
    # the winner's points by the rules (R-REV-4: one red; R-WAR-4: one for the leader, one per tile removed)
    points, scored = (1, "red") if cf["kind"] == "revolt" else (1 + len(tiles), colour)
    return text + f" {_who(winner, human).capitalize()} scores {points} {scored} point{'s' if points > 1 else ''}."
