"""Why a move is good: the search's evaluation of a position, term by term, for a player to read.

The search values a position (ext/search/evaluation.pyx `evaluate`) by each seat's colour
totals, its weakest colour, its leaders' prospects in their kingdoms, its
kings, the wonder, the catastrophes it has left and, at the root, how near
the end is. `explain` returns those terms per seat as the kernel counted
them while evaluating (ext.search.evaluation.explain_terms records them on the evaluation's
own code path, so the explanation cannot disagree with the search), and
`format_explanation` prints them as a table with one line of words per
seat. `tne-ai analyze --explain` and the protocol's `eval` command show them.

Hidden tiles. Every term is computed from public facts only: the board,
the scores, the treasures taken, the catastrophes left and the bag's size.
No term reads a hand (not even the observing seat's own) or the bag's
contents. The kernel needs a whole state, so `explain` deals one world from
the seat's observation (engine.info.determinize, seed WORLD_SEED) and
evaluates it; the tiles dealt there are never read, and an explanation given
a full snapshot is the one of that seat's observation, so the true hidden
tiles cannot leak into it. The output says so in its "hidden" field.
"""
from __future__ import annotations

import random

import engine
from engine.actions import COLOUR_NAMES, COLOURS, square_name
from engine.errors import EngineError, PositionError
from engine.info import determinize, is_observation, observation
from engine.position import check_snapshot, is_public
from ext.search import evaluation
from search.agent import SearchError
from search.params import SearchParams

WORLD_SEED = 0              # the world the kernel evaluates is dealt with this seed; no term reads its hidden tiles
HIDDEN = ("public facts only: no term reads a hand or the bag's contents; the state evaluated is "
          f"dealt from the seat's observation with seed {WORLD_SEED}")

NEED_TIE = 1e-4             # needs this close are a tie (float rounding in the kernel)

# the terms that add up to a seat's value, in the order they are shown
TERMS = ("colours", "weakest", "leaders", "kings", "wonder", "catastrophes")
TERM_WORDS = {"colours": "its colour totals", "weakest": "its weakest colour",
              "leaders": "its leaders' prospects", "kings": "its king's pull to its neediest colour",
              "wonder": "its king at the wonder", "catastrophes": "the catastrophes it holds"}


def explain(obs_or_snapshot: dict, seat=None, params: SearchParams = SearchParams()) -> dict:
    """Return every seat's evaluation terms at a position, as plain JSON-serialisable data.

    obs_or_snapshot: one seat's observation (engine.info.observation), or a
    full snapshot, which is first cut down to `seat`'s observation. seat:
    the observing seat (default: the observation's seat; for a snapshot, the
    seat to act, or 0 once the game is over). A public snapshot (no hands)
    is refused: give it with the seat's tiles as an observation.

    Per seat: its scores, treasures and totals (treasures on the weakest),
    the weakest colour, what one more point of each colour is worth (need),
    the terms of TERMS (they add up to `value`), its leaders one by one,
    `margin` (value less its opponents' weighted value), `reward` (what the
    evaluation returns for this state, ext.search.evaluation.evaluate_of), and as the search
    values its root: `end` (the end nearing, added to the margin of a seat
    that leads), `centre` (the margin taken off to centre the logistic) and
    `root_reward`. Raises PositionError for a bad position or seat,
    SearchError for bad params.
    """
    if not isinstance(params, SearchParams):
        raise SearchError(f"params must be a SearchParams, got {type(params).__name__}")
    obs, seat, knowledge = _observation_of(obs_or_snapshot, seat)
    try:
        state = engine.State.from_snapshot(determinize(obs, seat, random.Random(WORLD_SEED)))
    except EngineError as e:
        raise PositionError(f"inconsistent observation of seat {seat}: {e}") from e
    weights = params.eval_weights(obs["players"])
    plain = evaluation.explain_terms(state, weights, False)
    root = evaluation.explain_terms(state, weights, True)
    seats = [_seat_terms(p, obs, plain, root) for p in range(obs["players"])]
    return {
        "seat": seat, "knowledge": knowledge, "hidden": HIDDEN,
        "players": obs["players"], "board": obs["board"], "variants": list(obs.get("variants") or []),
        "phase": obs["phase"], "to_act": obs["to_act"], "turn_owner": obs["turn_owner"],
        "over": plain["over"], "progress": plain["progress"],
        "weights": dict(zip(evaluation.EVAL_FIELDS, weights)),
        "seats": seats,
    }


def _observation_of(x, seat):
    """Return (observation, seat, what was given) for explain's input; PositionError if unfit."""
    if not isinstance(x, dict):
        raise PositionError(f"explain takes an observation or a snapshot dict, got {type(x).__name__}")
    if is_observation(x):
        if seat is None:
            seat = x["seat"]
        return observation(x, seat), seat, "observation"
    check_snapshot(x)
    if is_public(x):
        raise PositionError("position field 'hands': a public snapshot holds no seat's tiles; give "
                            "the seat's observation (engine.view.observation_from_public)")
    if seat is None:
        seat = x["to_act"] if x["to_act"] >= 0 else 0
    return observation(x, seat), seat, "snapshot"


def _colour(c: int) -> dict:
    return {"colour": COLOURS[c], "name": COLOUR_NAMES[c]}


def _seat_terms(p: int, obs: dict, plain: dict, root: dict) -> dict:
    """Return one seat's terms from the kernel's records of the plain and the root evaluation."""
    t, r = plain["seats"][p], root["seats"][p]
    totals = t["totals"]
    tied = [COLOURS[c] for c in range(4) if totals[c] == t["weakest"]]
    weakest = COLOURS.index(tied[0])
    neediest = next(c for c in range(4) if t["need"][c] >= max(t["need"]) - NEED_TIE)
    leaders = []
    for lt in plain["leaders"]:
        if lt["seat"] != p:
            continue
        leaders.append({**_colour(lt["colour"]), "square": square_name(lt["square"]),
                        "temples": lt["temples"], "supporters": lt["supporters"],
                        "monuments": lt["monuments"], "treasure": lt["treasure"], "building": lt["building"],
                        "need": lt["need"], "prospect": lt["prospect"], "contribution": lt["contribution"]})
    leaders.sort(key=lambda lt: COLOURS.index(lt["colour"]))
    return {
        "seat": p,
        "scores": list(obs["scores"][p]), "treasures": obs["treasures_taken"][p], "totals": totals,
        "weakest": {**_colour(weakest), "value": t["weakest"], "tied": tied},
        "need": dict(zip(COLOURS, t["need"])),
        "neediest": _colour(neediest),
        "terms": {"colours": t["concave"], "weakest": t["weakest_bonus"], "leaders": t["leaders"],
                  "kings": t["kings"], "wonder": t["wonder"], "catastrophes": t["catastrophes"]},
        "leader_parts": dict(t["leader_parts"]),
        "leaders": leaders,
        "value": t["value"], "opponents": t["value"] - t["margin"], "margin": t["margin"],
        "reward": t["reward"],
        # + 0.0: a seat without a lead gets 0.0, not -0.0
        "end": r["end"] + 0.0, "centre": r["centre"] + 0.0, "root_reward": r["reward"],
    }


# ---------------------------------------------------------------- text

# column headings of the terms, and what they mean (the legend under the table)
HEADINGS = {"colours": "colours", "weakest": "bonus", "leaders": "leaders", "kings": "kings",
            "wonder": "wonder", "catastrophes": "cats"}
LEGEND = ("colours: tau*(1-exp(-x/tau)) summed over the colour totals; bonus: min_bonus * the weakest; "
          "leaders: need * prospect of each leader; kings: king * the largest need; wonder: as much again "
          "for a king in the wonder's kingdom; cats: catastrophes in hand; "
          "value: their sum; margin: value less the opponents'; end: the end nearing, at the root; "
          "reward: the evaluation's reward (0..1)")


def format_explanation(data: dict) -> str:
    """Return an explanation as a text table (one row per seat) and one line of words per seat."""
    seats = data["seats"]
    shown = [k for k in TERMS if k != "wonder" or "wonder" in data["variants"]
             or any(abs(s["terms"][k]) > 0 for s in seats)]
    width = {k: max(7, len(HEADINGS[k]) + 1) for k in shown}
    head = (f"{'seat':>4}  {'k':>2}{'r':>3}{'b':>3}{'g':>3}{'+t':>4}  {'weakest':<9}"
            + "".join(f"{HEADINGS[k]:>{width[k]}}" for k in shown)
            + f"{'value':>8}{'margin':>8}{'end':>7}{'reward':>8}")
    out = [_heading(data), "", head]
    for s in seats:
        w = s["weakest"]
        out.append(f"{s['seat']:>4}  " + "".join(f"{v:>{2 if i == 0 else 3}}" for i, v in enumerate(s["scores"]))
                   + f"{s['treasures']:>4}  {w['name'] + ' ' + str(w['value']):<9}"
                   + "".join(f"{s['terms'][k]:>{width[k]}.2f}" for k in shown)
                   + f"{s['value']:>8.2f}{s['margin']:>+8.2f}{s['end']:>+7.2f}{s['reward']:>8.3f}")
    out += ["", "(" + LEGEND + ")", ""]
    out += [describe_seat(s, data) for s in seats]
    return "\n".join(out)


def _heading(data: dict) -> str:
    who = "" if data["over"] else f", seat {data['to_act']} to act"
    variants = f", variants {','.join(data['variants'])}" if data["variants"] else ""
    state = ("game over: rewards are the final ranking" if data["over"]
             else f"{100 * data['progress']:.0f}% of the way to the end")
    return (f"evaluation as seat {data['seat']} sees it ({data['players']} players{variants}{who}; "
            f"{state}; {HIDDEN.split(':')[0]})")


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def _point_of(colours: list) -> str:
    if len(colours) == 4:
        return "a point of any colour"
    if len(colours) == 1:
        return f"a {colours[0]} point"
    return f"a {', '.join(colours[:-1])} or {colours[-1]} point"


def describe_seat(s: dict, data: dict) -> str:
    """Return one line of words saying what counts most in a seat's value."""
    terms = s["terms"]
    w = s["weakest"]
    also = [COLOUR_NAMES[COLOURS.index(c)] for c in w["tied"][1:]]
    top_need = max(s["need"].values())
    neediest = [COLOUR_NAMES[COLOURS.index(c)] for c, v in s["need"].items() if v >= top_need - NEED_TIE]
    parts = [f"seat {s['seat']}: weakest colour {w['name']} {w['value']}"
             + (f" (tied with {', '.join(also)})" if also else "")
             + f", {_point_of(neediest)} is worth most (+{top_need:.2f})",
             f"its points count {terms['colours'] + terms['weakest']:+.2f}"]
    others = [k for k in TERMS if k not in ("colours", "weakest") and abs(terms[k]) >= 0.005]
    if others:
        top = max(others, key=lambda k: (abs(terms[k]), -TERMS.index(k)))
        parts.append(f"beyond them counts most {TERM_WORDS[top]} ({terms[top]:+.2f})")
    if s["leaders"]:
        names = " ".join(lt["colour"] for lt in s["leaders"])
        best = max(s["leaders"], key=lambda lt: lt["contribution"])
        n = len(s["leaders"])
        parts.append(f"leaders of {_plural(n, 'colour')} in kingdoms ({names}) add {terms['leaders']:+.2f}, "
                     f"most the {best['name']} one at {best['square']} ({_plural(best['supporters'], 'supporter')}, "
                     f"{_plural(best['temples'], 'temple')}"
                     + (f", {_plural(best['monuments'], 'monument')}" if best["monuments"] else "")
                     + (", a treasure" if best["treasure"] else "")
                     + (", its building" if best["building"] else "") + f": {best['contribution']:+.2f})")
    else:
        parts.append("no leader on the board")
    if abs(s["end"]) >= 0.005:
        parts.append(f"the end nearing {'helps' if s['end'] > 0 else 'hurts'} it ({s['end']:+.2f})")
    if data["over"]:
        parts.append(f"final reward {s['reward']:.3f}")
    else:
        parts.append(f"{s['margin']:+.2f} against its opponents, reward {s['reward']:.3f}")
    return "; ".join(parts)
