"""`tne-ai play`: a human against one to three engines in the terminal.

The referee loop holds the true state; every engine (search.baselines /
search.ismcts agents, in-process) is told only its own seat's observation
(engine.info.observation), and the human is shown only what their seat may
see (R-INFO-1): the board rendered from their observation (their own hand,
hand sizes of the others, the bag's size) and each decision as an event of
their seat view (engine.view.events_for_seat: another seat's swap shows only
how many tiles, the bag only the tiles the human drew).

Every atomic decision of the human's seat is asked for in turn: actions
(R-TURN), revolt and war commitments (R-REV, R-WAR), which war first, the
monument choice (R-MON) and the treasure choice (R-TRE-1), each explained
(tne_ai.prompts, in the same words as the browser page);
with the 2015 variants (`--variants`, docs/engine.md "Variants") also the
limited English commitments, where to put a civilization building, whether to
build the wonder, and the colour of a wonder point. A
decision is entered by its number in the `moves` list or in notation, and
re-asked with a reason when it cannot be read or is not legal. The game
record (engine.record) is saved at the end, on `quit`, at end of input and
on Ctrl-C.

`hint` searches the human's decision from their observation only, at an
iteration limit (reproducible); `undo` takes back their last decision and the
engines' replies after it, the bag shuffled again from a secret seed
(tne_ai.undo, as the web game does) so that an undo never shows a tile the
human would not otherwise know. The squares of the engines' decisions since
the human's last one are marked `>` on the board.

With teaching mode on (`--teach [THRESHOLD]`, or `teach on` in the game) each
decision entered is valued against the engine's best from the human's
observation before it is played (tne_ai.teach, the review's valuation): when
the loss's lower bound reaches the threshold the human is told, shown the
engine's decision and asked to play theirs anyway, take it back or play the
engine's; nothing is applied, drawn or searched by the engines before that.
"""
from __future__ import annotations

import random
import sys
import time
from typing import Optional

import click

import engine
from engine import actions as A
from engine.boards import COLS, SQUARES
from engine.errors import NotationError
from engine.info import observation
from engine.legality import why_illegal
from engine.errors import EngineError
from engine.record import GameRecorder
from engine.render import legend, render
from engine.svg import decision_squares
from engine.view import events_for_seat
from search.agent import Limits
from search.baselines import GreedyAgent, RandomAgent
from search.ismcts import ISMCTSAgent, worker_seed
from search.levels import FULL_STRENGTH, LEVELS_RANGE, LevelAgent
from search.twins import TwinError, refuse_twin
from tne_ai.inputs import InputError, check_agrees, check_seat, load_input, require_state, variants_option
from tne_ai.prompts import conflict_outcome, decision_prompt, square
from tne_ai.teach import ANSWERS, DEFAULT_THRESHOLD, TEACH_ITERATIONS, check_decision, parse_threshold, warning_text
from tne_ai.undo import reshuffled_start

ENGINES = ("ismcts", "greedy", "random")
DEFAULT_ITERATIONS = 3000
SHORT_LIST = 24          # decision lists up to this long are shown without asking

HELP = """\
Enter a decision by its number (see 'moves') or in notation:
  tile r f7        place a tile (k black, r red, b blue, g green)
  leader k g8      place a leader, or move it there
  withdraw g       take a leader back to your supply
  cat h4           play a catastrophe tile
  swap rrk         discard these tiles and draw as many
  pass             end your turn
  commit 3         tiles committed to a revolt or a war
  war k            which war is fought first
  monument rk f6   build a monument on the 2x2 block whose top-left is f6
  nomonument       build no monument
  treasure j9      take that treasure
{variants}Commands: moves [filter] (list the legal decisions, e.g. 'moves leader'),
hint (the engine's best decisions for you, from what you know, and your chance
of winning after each), undo (take back your last decision and the engines'
replies; the tiles in the bag are shuffled again), teach [on|off|THRESHOLD]
(teaching mode: a warning before a decision that loses at least THRESHOLD of
your chance of winning), board, help, quit (saves the game record).
Squares: a1 is the top left, p11 the bottom right. The engines' decisions since
yours are marked > on the board.
{legend}
"""

# the help's lines for each 2015 variant (docs/engine.md "Variants")
VARIANT_HELP = {
    "english": "  (english: in a revolt or war you commit nothing or exactly the tiles needed)\n",
    "buildings": ("  building r c5    put the red building on c5, a square of your new line of 3+\n"
                  "  nobuilding       put no building\n"),
    "wonder": ("  wonder f6        build the wonder on the cross of five tiles centred on f6\n"
               "  nowonder         build no wonder\n"
               "  wonderpoint g    take your wonder point in green\n"),
}

# one line per variant, said at the start of a game played with it
VARIANT_INTRO = {
    "english": ("english (limited commitments): in a revolt or war each side commits nothing or "
                "exactly the tiles it needs"),
    "buildings": ("buildings: a line of 3 or more tiles of one colour may take that colour's building; "
                  "tiles scored in a kingdom holding it score double, and a war never removes the tile "
                  "under it"),
    "wonder": ("wonder: a cross of five tiles of one colour may become the wonder; at the end of your turn "
               "with your king in its kingdom you score a point of a colour of your choice"),
}


def help_text(variants=()) -> str:
    """Return the help, with the notation of the variants that are on."""
    return HELP.format(variants="".join(VARIANT_HELP[v] for v in variants),
                       legend=legend(variants, marked=True))

COLOUR_STYLE = {"k": {"fg": "black", "bg": "white"}, "r": {"fg": "red"},
                "b": {"fg": "blue"}, "g": {"fg": "green"}}


class QuitGame(Exception):
    """Signal that the human ended the game early (quit, end of input, Ctrl-C)."""

    def __init__(self, why: str, code: int = 0):
        super().__init__(why)
        self.why = why
        self.code = code


# ---------------------------------------------------------------- display


def style_token(token: str) -> str:
    """Return one board square's text with ANSI colours (tile colour, leader, river, treasure)."""
    if not token or token == ".":
        return click.style(token, dim=True)
    if token == "~":
        return click.style(token, fg="cyan")
    if token == "X":
        return click.style(token, fg="magenta", bold=True)
    if token[0] == "W":                          # a square of the wonder (variant), maybe with a treasure
        return click.style(token, fg="yellow", bold=True)
    if token[0].isdigit():                       # a leader: seat digit + colour letter
        return click.style(token, bold=True, reverse=True, **COLOUR_STYLE[token[1].lower()])
    letter, mark = token[0], token[1:]
    # face-down tiles (under a monument) are underlined, face-up ones bold
    body = click.style(letter, bold=letter.isupper() or None, underline=letter.islower() or None,
                       **COLOUR_STYLE[letter.lower()])
    return body + (click.style(mark, fg="yellow", bold=True) if mark else "")


def mark_squares(text: str, squares) -> str:
    """Return render() output with `>` before each of `squares` (in the blank that precedes a square)."""
    lines = text.split("\n")
    for sq in squares:
        row, col = divmod(sq, COLS)
        line = lines[row + 1].ljust(3 + 3 * COLS)
        k = 3 + 3 * col
        lines[row + 1] = (line[:k] + ">" + line[k + 1:]).rstrip()
    return "\n".join(lines)


def colour_board(text: str) -> str:
    """Return render() output with the grid squares coloured, a `>` mark kept and its square reversed."""
    out = []
    for i, line in enumerate(text.split("\n")):
        if 1 <= i <= 11 and line[:2].strip().isdigit():
            # a grid row: the row number, then three characters per square (engine/render.py)
            cells = [(line[k], line[k + 1:k + 3].strip()) for k in range(3, len(line), 3)]
            line = (line[:3] + "".join(
                (click.style(">", fg="yellow", bold=True) + click.style(t, reverse=True)
                 if lead == ">" else " " + style_token(t)) + " " * (2 - len(t))
                for lead, t in cells)).rstrip()
        out.append(line)
    return "\n".join(out)


def hand_text(hand) -> str:
    """Return a hand [k, r, b, g] as coloured letters."""
    letters = [ch for ch, n in zip(A.COLOURS, hand) for _ in range(n)]
    return " ".join(style_token(ch.upper()) for ch in letters) or "-"


def summarise(moves: list) -> str:
    """Return a one-line count of legal decisions by kind."""
    counts = {}
    for m in moves:
        verb = m.split()[0]
        if verb in ("tile", "leader"):
            verb = " ".join(m.split()[:2])
        counts[verb] = counts.get(verb, 0) + 1
    return ", ".join(f"{k} ({n})" if n > 1 else k for k, n in counts.items())


def variant_note(before: dict, action: int, after: dict) -> str:
    """Return a public remark on what a decision did to the variants' pieces (buildings, the wonder), else ''."""
    kind = A.kind(action)
    notes = []
    if kind == "building":
        c = (action - A.BUILDING_BASE) // SQUARES
        old = before["buildings"][c]
        notes.append(f"the {A.COLOUR_NAMES[c]} building now stands on {square(after['buildings'][c])}"
                     + (f" (moved from {square(old)})" if old >= 0 else " (from the supply)"))
    if kind == "wonder":
        notes.append(f"the wonder is built, centred on {square(after['wonder'])}: its five tiles leave the game")
    for c, (b, a) in enumerate(zip(before.get("buildings") or [], after.get("buildings") or [])):
        if b >= 0 and a < 0:                     # its tile turned face down (a monument) or left (the wonder)
            notes.append(f"the {A.COLOUR_NAMES[c]} building at {square(b)} goes back to the supply")
    return "; ".join(notes)


# ---------------------------------------------------------------- the game


def make_agent(name: str, seed: int, limits: Limits, level: int = FULL_STRENGTH):
    """Return an in-process engine by name (ismcts, greedy, random); ismcts below level 10 plays at that level."""
    if name == "ismcts" and level < FULL_STRENGTH:
        return LevelAgent(seed, level=level)
    if name == "ismcts":
        return ISMCTSAgent(seed=seed, limits=limits)
    if name == "greedy":
        return GreedyAgent(seed)
    return RandomAgent(seed)


HINT_CANDIDATES = 3     # decisions a hint shows
HINT_CAPTION = ("  (wins: your chance of winning the game after the decision, its 95% interval, when the engine "
                "plays every seat from there; best value first; visits: the search's iterations that chose it)")


class Undone(Exception):
    """Signal that the human took decisions back: the game goes on from the position before them."""


class TerminalGame:
    """One game between the human at the terminal and in-process engines."""

    def __init__(self, state, human: int, engines: dict, limits: Limits, recorder: GameRecorder,
                 record_path: str, color: Optional[bool], seed: int = 0, hint_limits: Optional[Limits] = None,
                 teach: Optional[float] = None, teach_iterations: int = TEACH_ITERATIONS):
        self.state = state
        self.initial = state.clone()       # where the game (and its record) starts: undo replays from it
        self.seed = seed                   # the hints' searches: seed, the number of hints before
        self.human = human
        self.engines = engines             # seat -> (name, agent)
        self.limits = limits
        # a hint searches to an iteration limit, so it is the same whatever the machine's load
        self.hint_limits = hint_limits or Limits(limits.iterations or DEFAULT_ITERATIONS)
        self.rec = recorder
        self.record_path = record_path
        self.color = color
        self.shown = None                  # the position last drawn for the human
        self.legal: list = []
        self.hints = 0
        self.actions: list = []            # every decision so far
        self.seats: list = []              # the seat that made each
        self.since_yours: list = []        # (seat, event) of the engines' decisions since the human's last
        self.reshuffles = 0
        self.teach = teach                 # teaching mode's threshold, None when off
        self.teach_threshold = teach or DEFAULT_THRESHOLD    # the threshold `teach on` restores
        self.teach_iterations = teach_iterations

    # --- output

    def echo(self, text: str = "", err: bool = False) -> None:
        """Print a line, in colour only when asked or on a terminal."""
        click.echo(text, color=self.color, err=err)

    def view(self) -> dict:
        """Return the human's observation: everything they are shown comes from it."""
        return observation(self.state.snapshot(), self.human)

    def show_board(self) -> None:
        """Draw the board as the human's seat sees it, with their hand, the engines' last decisions marked."""
        obs = self.view()
        marked = [sq for _, ev in self.since_yours if not ev.startswith("swap") for sq in decision_squares(ev)]
        self.echo(colour_board(mark_squares(render(obs, self.human), marked)).rstrip("\n"))
        if self.since_yours:
            by_seat = {}
            for seat, ev in self.since_yours:
                by_seat.setdefault(seat, []).append(ev)
            self.echo("engines played since your last decision" + (" (marked >)" if marked else "") + ": "
                      + "; ".join(f"seat {seat} {', '.join(evs)}" for seat, evs in by_seat.items()))
        self.echo(f"you are seat {self.human}; your hand: {hand_text(obs['hand'])}")
        self.shown = self.state.position()

    def list_moves(self, filt: str = "") -> None:
        """Print the legal decisions, numbered, those starting with `filt` only if given."""
        moves = [(i + 1, A.format_action(a)) for i, a in enumerate(self.legal)]
        if filt:
            moves = [(i, m) for i, m in moves if m.startswith(filt)]
        if not moves:
            self.echo(f"no legal decision starts with {filt!r}")
            return
        cells = [f"{i:>4}. {m:<15}" for i, m in moves]
        for k in range(0, len(cells), 5):
            self.echo("".join(cells[k:k + 5]).rstrip())

    def hint(self) -> None:
        """Search the human's decision from what they know; show the best few decisions, best value first."""
        from search.analysis import analyse_to_act, equally_good
        from search.calibration import describe_chance
        from search.ismcts import ISMCTS
        searcher = ISMCTS()
        try:
            a = analyse_to_act(searcher, self.view(), self.human, self.hint_limits,
                               worker_seed(self.seed, 1000 + self.hints))
        finally:
            searcher.close()
        self.hints += 1
        self.echo(f"hint ({a['iterations']:,} iterations, from what you know): "
                  + describe_chance(a["win_chance"], self.human))
        # the decisions the search looked at most, then ranked by what they are worth
        shown = sorted(a["candidates"][:HINT_CANDIDATES], key=lambda c: (-c["mean"], c["rank"]))
        for i, c in enumerate(shown, 1):
            chance = c.get("win_chance")
            wins = (f"wins {100 * chance['win']:.0f}% ({100 * chance['low']:.0f}-{100 * chance['high']:.0f}%)"
                    if chance else f"search value {c['mean']:.3f} ({c['low']:.3f}-{c['high']:.3f})")
            self.echo(f"  {i}. {c['move']:<16} {wins}, {c['visits']} visits")
        tied = [c["move"] for c in equally_good(shown)]
        if len(tied) > 1:
            self.echo(f"  equally good as far as the search can tell (their intervals overlap): {', '.join(tied)}")
        self.echo(HINT_CAPTION if shown and shown[0].get("win_chance") else HINT_CAPTION.replace(
            "wins: your chance of winning the game after the decision", "search value: the search's mean reward "
            "after the decision (no win-chance map for this game)").replace(", when the engine plays every seat "
                                                                           "from there", ""))

    def undo(self) -> None:
        """Take back the human's last decision and the engines' after it; the bag is shuffled again (tne_ai.undo)."""
        mine = [i for i, seat in enumerate(self.seats) if seat == self.human]
        if not mine:
            self.echo("nothing to undo: you have made no decision yet")
            return
        k = mine[-1]
        taken = [A.format_action(a) for a in self.actions[k:]]
        try:
            initial = reshuffled_start(self.initial, self.actions[:k], self.human)
        except EngineError as e:
            self.echo(f"cannot undo: {e}")
            return
        self.reshuffles += 1
        self.rebuild(initial, self.actions[:k])
        self.echo(f"undone: your {taken[0]}" + (f" and {len(taken) - 1} engine decision(s) after it"
                                                 if len(taken) > 1 else "")
                  + "; the tiles in the bag are shuffled again, so what you saw drawn tells nothing")
        raise Undone()

    def teach_command(self, arg: str) -> None:
        """Switch teaching mode: `teach` says how it stands, `teach on|off`, `teach THRESHOLD` (on, at it)."""
        if arg in ("on", "off"):
            self.teach = self.teach_threshold if arg == "on" else None
        elif arg:
            try:
                self.teach = self.teach_threshold = parse_threshold(arg)
            except ValueError as e:
                self.echo(f"{e}: teaching mode stays {self.teach_state()}. Type 'teach on', 'teach off' or "
                          f"'teach 0.15'.")
                return
        self.echo(f"teaching mode {self.teach_state()}")

    def teach_state(self) -> str:
        """Return how teaching mode stands, in words."""
        if self.teach is None:
            return "off"
        return (f"on: a warning before a decision that loses at least {self.teach:.2f} of your chance of "
                f"winning (by the 95% lower bound of the loss; {self.teach_iterations:,} iterations a check)")

    def teach_check(self, action: int) -> Optional[int]:
        """Value the human's decision before it is played; warn and ask if it loses too much.

        Return the decision to play (theirs, or the engine's best) or None when
        they take it back. Nothing is applied: tiles it would draw stay unknown.
        """
        from search.ismcts import ISMCTS
        searcher = ISMCTS()
        try:
            c = check_decision(searcher, self.view(), action, len(self.actions), worker_seed(self.seed, 2000),
                               self.teach, self.teach_iterations)
        finally:
            searcher.close()
        if not c["warn"]:
            return action
        self.echo(f"teaching: {warning_text(c)}")
        if c["units"] == "win chance":
            self.echo(f"  your chance of winning after it: {100 * c['played_win']:.0f}%; after {c['best']}: "
                      f"{100 * c['best_win']:.0f}% (a loss counts when its 95% lower bound reaches "
                      f"{self.teach:.2f}; {c['iterations']:,} iterations)")
        self.echo(f"  play: {ANSWERS['play']}; back: {ANSWERS['back']} and choose again; "
                  f"best: play {c['best']} instead")
        while True:
            answer = self.read_line("play/back/best> ").strip().lower()
            if answer in ("play", "p", "yes", "y"):
                return action
            if answer in ("back", "b", "no", "n", "undo"):
                self.echo(f"taken back: {c['move']} is not played; choose again")
                return None
            if answer == "best":
                return c["best_action"]
            if answer in ("quit", "exit", "q"):
                raise QuitGame("quit")
            self.echo(f"answer play (play {c['move']} anyway), back (take it back and choose again) or best "
                      f"(play {c['best']}), not {answer[:40]!r}")

    def rebuild(self, initial, actions: list) -> None:
        """Start the game again from `initial` and replay `actions`: the state, the record and every engine."""
        heads = dict(self.rec.headers)
        if self.rec.seed is not None:
            heads["engine_seed"] = str(self.rec.seed)     # the seed no longer deals the game: [start] does
        heads["reshuffled"] = str(self.reshuffles)
        self.initial = initial.clone()
        self.state = initial.clone()
        self.rec = GameRecorder(self.state, seed=None, headers=heads)
        snap = self.state.snapshot()
        for s, (_, agent) in self.engines.items():
            agent.new_game(s, observation(snap, s))
        self.actions, self.seats, self.since_yours = [], [], []
        for a in actions:
            self.record(self.state.to_act, a)
        self.shown = None


    # --- the human's decisions

    def read_line(self, prompt: str) -> str:
        """Read one line of input; QuitGame at end of input or on Ctrl-C."""
        try:
            line = input(prompt)
        except EOFError:
            raise QuitGame("end of input") from None
        except KeyboardInterrupt:
            raise QuitGame("interrupted", 130) from None
        if not sys.stdin.isatty():
            self.echo(line)          # piped input: keep the transcript readable
        return line

    def ask(self) -> int:
        """Ask the human for a legal decision until one is given."""
        self.legal = self.state.legal_actions()
        obs = self.view()
        if self.shown != self.state.position():
            self.echo()
            self.show_board()
        self.echo()
        self.echo(decision_prompt(obs, self.human, self.legal))
        moves = [A.format_action(a) for a in self.legal]
        if len(moves) <= SHORT_LIST:
            self.list_moves()
        else:
            self.echo(f"{len(moves)} legal decisions: {summarise(moves)}.")
            self.echo("Type 'moves' to number them ('moves tile r' to filter), or enter a decision.")
        while True:
            line = self.read_line(f"seat {self.human}> ").strip()
            cmd = line.lower()
            if not cmd:
                continue
            if cmd in ("help", "?", "h"):
                self.echo(help_text(self.state.variants).rstrip())
                continue
            if cmd == "board":
                self.show_board()
                continue
            if cmd == "hint":
                self.hint()
                continue
            if cmd == "undo":
                self.undo()
                continue
            if cmd == "teach" or cmd.startswith("teach "):
                self.teach_command(cmd[5:].strip())
                continue
            if cmd == "moves" or cmd.startswith("moves "):
                self.list_moves(cmd[5:].strip())
                continue
            if cmd in ("quit", "exit", "q"):
                raise QuitGame("quit")
            if cmd.isdigit():
                n = int(cmd)
                if not 1 <= n <= len(self.legal):
                    self.echo(f"no decision number {n}: choose 1 to {len(self.legal)} ('moves' lists them)")
                    continue
                action = self.legal[n - 1]
            else:
                try:
                    action = A.parse_action(cmd)
                except NotationError as e:
                    self.echo(f"cannot read {line!r}: {e}. Enter a number from 'moves', a decision "
                              f"such as 'tile r f7', or 'help'.")
                    continue
                if action not in self.legal:
                    self.echo(f"{A.format_action(action)!r} is not legal now: {why_illegal(obs, action)}. "
                              f"'moves' lists the legal decisions.")
                    continue
            if self.teach is not None and len(self.legal) > 1:
                action = self.teach_check(action)
                if action is None:
                    continue
            return action

    # --- announcing what the human may see

    def announce(self, seat: int, action: int, before: dict, after: dict) -> None:
        """Tell the human what they may see of a decision: the event, their draws, points scored."""
        who = "you" if seat == self.human else f"seat {seat} ({self.engines[seat][0]})"
        events = events_for_seat(before, action, after, self.human)
        first = events[0]
        if first.startswith("swap") and seat != self.human:
            first = f"swap {first.split()[1]} tiles (hidden)"
        self.echo(f"{who}: {first}")
        note = variant_note(before, action, after)
        if note:
            self.echo(f"  {note}")
        outcome = conflict_outcome(before, action, after, self.human)
        if outcome:
            self.echo(f"  {outcome}")
        for s in range(after["players"]):
            gained = [a - b for a, b in zip(after["scores"][s], before["scores"][s])]
            got = ", ".join(f"+{n} {A.COLOUR_NAMES[c]}" for c, n in enumerate(gained) if n)
            treasures = after["treasures_taken"][s] - before["treasures_taken"][s]
            if treasures:
                got += (", " if got else "") + f"+{treasures} treasure"
            if got:
                self.echo(f"  {'you score' if s == self.human else f'seat {s} scores'} {got}")
        # the draws come last: they happen at the turn's end, after a conflict the decision settled
        for ev in events[1:]:
            self.echo(f"  you drew {' '.join(ev.split()[1])}")

    # --- the loop

    def save(self, note: str = "") -> None:
        """Write the game record (with a closing comment if given)."""
        text = self.rec.text() + (f"# {note}\n" if note else "")
        try:
            with open(self.record_path, "w", encoding="utf-8") as f:
                f.write(text)
        except OSError as e:
            self.echo(f"could not save the game record to {self.record_path}: {e}", err=True)
            return
        self.echo(f"game record saved to {self.record_path}")

    def record(self, seat: int, action: int) -> tuple:
        """Apply a decision through the record, tell every engine; return the snapshots before and after."""
        before = self.state.snapshot()
        self.rec.apply(action)
        after = self.state.snapshot()
        self.actions.append(action)
        self.seats.append(seat)
        # what the human saw of it (another seat's swap: only how many), marked on the board till they decide
        seen = events_for_seat(before, action, after, self.human)[0]
        self.since_yours = [] if seat == self.human else self.since_yours + [(seat, seen)]
        for s, (_, agent) in self.engines.items():
            agent.apply(action, observation(after, s))
        return before, after

    def run(self) -> int:
        """Play to the end (or until the human stops); save the record; return the exit status."""
        snap = self.state.snapshot()
        for s, (_, agent) in self.engines.items():
            agent.new_game(s, observation(snap, s))
        self.echo(f"you are seat {self.human}; " + ", ".join(
            f"seat {s}: {name}" for s, (name, _) in sorted(self.engines.items()))
            + f"; seat {self.state.to_act} to act. Type 'help' for help.")
        for v in self.state.variants:
            self.echo(f"variant {VARIANT_INTRO[v]}.")
        if self.teach is not None:
            self.echo(f"teaching mode {self.teach_state()}.")
        try:
            while not self.state.is_terminal():
                seat = self.state.to_act
                if seat == self.human:
                    try:
                        action = self.ask()
                    except Undone:
                        continue
                else:
                    action = self.engines[seat][1].choose(self.limits)
                    if action not in self.state.legal_actions():
                        raise click.ClickException(f"engine {self.engines[seat][0]} at seat {seat} "
                                                   f"chose an illegal decision {action!r}")
                before, after = self.record(seat, action)
                self.announce(seat, action, before, after)
        except QuitGame as q:
            self.echo()
            self.echo(f"game stopped ({q.why}) after {len(self.actions)} decision(s)")
            self.save(f"game stopped ({q.why}) after {len(self.actions)} decisions")
            return q.code
        except KeyboardInterrupt:
            self.echo()
            self.echo(f"game stopped (interrupted) after {len(self.actions)} decision(s)")
            self.save(f"game stopped (interrupted) after {len(self.actions)} decisions")
            return 130
        self.echo()
        self.show_board()
        snap = self.state.snapshot()
        ranks = self.state.result()
        self.echo(f"game over ({snap['end_reason']}): "
                  + ", ".join(f"{'you' if s == self.human else f'seat {s}'} rank {r + 1}"
                              for s, r in enumerate(ranks)))
        self.echo("you win!" if ranks[self.human] == 0 else "you lose.")
        self.save()
        return 0


def _threshold(value: Optional[str]) -> Optional[float]:
    """Return --teach's threshold (None when not given); BadParameter naming what is wrong."""
    if value is None:
        return None
    try:
        return parse_threshold(value)
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="'--teach'") from None


def _engine_names(text: str, opponents: int) -> list:
    names = [n.strip().lower() for n in text.split(",") if n.strip()]
    for n in names:
        try:
            refuse_twin(n, "tne-ai play")
        except TwinError as e:
            raise click.BadParameter(str(e), param_hint="'--engine'") from None
        if n not in ENGINES:
            raise click.BadParameter(f"unknown engine {n!r}; choose from {', '.join(ENGINES)}",
                                     param_hint="'--engine'")
    if len(names) == 1:
        names = names * opponents
    if len(names) != opponents:
        raise click.BadParameter(f"{len(names)} engines named for {opponents} opponent seat(s): "
                                 f"give one name, or one per opponent", param_hint="'--engine'")
    return names


@click.command("play", epilog="In the game, type a decision (its number in 'moves', or notation such as 'tile r f7') "
               "or a command: help, board, moves [filter], hint (the engine's best decisions for you, from what "
               "you know), undo (take back your last decision and the engines' replies; the bag is shuffled "
               "again), teach on|off|THRESHOLD (teaching mode), quit (saves the game record). The engines' decisions since yours are marked > on the board.")
@click.option("--players", type=click.IntRange(2, 4), help="Players in all, you included (default 2).")
@click.option("--seat", type=click.IntRange(min=0), default=0, show_default=True, help="Your seat.")
@click.option("--engine", "engine_names", default="ismcts", show_default=True,
              help="Opponents: ismcts, greedy or random; one name for all, or a comma list per seat.")
@click.option("--iterations", type=click.IntRange(min=1),
              help=f"ismcts iterations per decision (default {DEFAULT_ITERATIONS} when no time is given).")
@click.option("--seconds", type=click.FloatRange(min=0, min_open=True), help="ismcts seconds per decision.")
@click.option("--level", type=click.IntRange(*LEVELS_RANGE),
              help="The ismcts engines' level: 1 (weakest) to 10 (full strength, the default); below 10 a "
                   "level sets its own budget (docs/strength.md, Levels).")
@click.option("--seed", type=click.IntRange(0, 2 ** 63 - 1), help="Deal and engine seed (default: random).")
@click.option("--board", type=click.Choice(["standard", "advanced"]), help="Board (default standard).")
@variants_option("The 2015 variants of a new game (default none; with --start the position decides).")
@click.option("--start", metavar="POSITION_OR_FILE",
              help="Start from this position or game record instead of a new deal.")
@click.option("--ply", type=click.IntRange(min=0), help="With --start RECORD: after N decisions.")
@click.option("--record", "record_path", type=click.Path(dir_okay=False, writable=True),
              help="Save the game record here (default: tne-ai-<date>-seed<seed>.txt).")
@click.option("--color/--no-color", default=None, help="Colour the board (default: on a terminal).")
@click.option("--teach", metavar="[THRESHOLD]", type=str, is_flag=False, flag_value=str(DEFAULT_THRESHOLD),
              callback=lambda ctx, param, value: _threshold(value),
              help=f"Teaching mode: before a decision that loses at least THRESHOLD of your chance of winning "
                   f"(by the loss's 95% lower bound; default {DEFAULT_THRESHOLD:.2f}), say so, show the engine's "
                   f"best and offer to take it back.")
@click.option("--teach-iterations", type=click.IntRange(1, 200_000), default=TEACH_ITERATIONS, show_default=True,
              help="Iterations of each search of a teaching check.")
def play_command(players, seat, engine_names, iterations, seconds, level, seed, board, variants, start, ply,
                 record_path, color, teach, teach_iterations):
    """Play against one to three engines in the terminal."""
    level = FULL_STRENGTH if level is None else level
    if level < FULL_STRENGTH and (iterations or seconds):
        raise click.UsageError(f"--level {level} sets the engines' budget: give --level or --iterations/--seconds, "
                               "not both")
    if seed is None:
        seed = random.SystemRandom().randrange(1_000_000)
    if start is not None:
        loaded = load_input(start, ply)
        state = require_state(loaded, "play --start").clone()
        check_agrees(loaded.snapshot, players, board, variants, "the start position")
        if state.is_terminal():
            raise InputError(f"the game in {loaded.source} is over: nothing to play")
    else:
        if ply is not None:
            raise click.UsageError("--ply needs --start")
        state = engine.new_game(players or 2, seed, board or "standard", variants or ())
    n = state.players
    check_seat(seat, n)
    names = _engine_names(engine_names, n - 1)
    limits = Limits(iterations if iterations or seconds else DEFAULT_ITERATIONS, seconds)
    opponents = [s for s in range(n) if s != seat]
    engines = {s: (nm, make_agent(nm, worker_seed(seed, s), limits, level)) for s, nm in zip(opponents, names)}
    headers = {"human": str(seat), "engines": " ".join(f"{s}:{nm}" for s, (nm, _) in engines.items())}
    if level < FULL_STRENGTH:
        headers["level"] = str(level)
    if start is not None:
        # the record starts from the full start position; the seed then only seeds the engines
        headers["engine_seed"] = str(seed)
        recorder = GameRecorder(state, seed=None, headers=headers)
    else:
        recorder = GameRecorder(state, seed=seed, headers=headers)
    if record_path is None:
        record_path = f"tne-ai-{time.strftime('%Y%m%d-%H%M%S')}-seed{seed}.txt"
    on = f", variants {','.join(state.variants)}" if state.variants else ""
    click.echo(f"tne-ai play: {n} players, {state.board_name} board{on}, seed {seed}")
    game = TerminalGame(state, seat, engines, limits, recorder, record_path, color, seed,
                        teach=teach, teach_iterations=teach_iterations)
    code = game.run()
    if code:
        sys.exit(code)
