"""A seat's view (:class:`gutskit.core.views.SeatView`) as a flat vector and as a string,
for the research environments. Built from the view alone: nothing a seat may not see
(RULES.md "Antes, declaration, resolution"; what a seat sees is decided in
:mod:`gutskit.core.views`).

Vector layout (float32), seats counted from the viewer (0 = the viewer, 1 = the seat on
its left, ...), chip amounts in antes:

* 52: the viewer's cards (one-hot by card code; zeros while unseen under ``no_peek``);
* under Pass the Trash, 52 + 52: the card it passed and the card it received;
* 2: phase flags (choosing the card to pass, declaring);
* 3: pot, what a loser would match (``owed``), reserve;
* per seat, 9: stack, dealt in, has declared, is the dealer, then the declaration if
  visible, one-hot over out, in, high, low, both.

>>> from gutskit.core.engine import deal_from_rng, new_session
>>> from gutskit.core.views import view_for
>>> import random
>>> state, _ = deal_from_rng(new_session(["A", "B"], 100), random.Random(1))
>>> vector = encode_view(view_for(state, 0))
>>> vector.shape == (observation_size(state.rules, 2),), int(vector[:52].sum())
(True, 3)
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from gutskit.core.cards import card_name
from gutskit.core.engine import Phase
from gutskit.core.events import Declaration
from gutskit.core.rules import Rules
from gutskit.core.views import SeatView

__all__ = ["DECLARATIONS", "describe_view", "encode_view", "observation_size"]

DECLARATIONS = (Declaration.OUT, Declaration.IN, Declaration.HIGH, Declaration.LOW,
                Declaration.BOTH)
"""The declarations in the order of the vector's one-hot (and of the environments'
declaration actions: out, in; under hi-lo out, high, low, both)."""

_PER_SEAT = 4 + len(DECLARATIONS)


def observation_size(rules: Rules, n_seats: int) -> int:
    """Length of :func:`encode_view`'s vector for ``n_seats`` seats under ``rules``."""
    return 52 + 104 * rules.pass_the_trash + 2 + 3 + _PER_SEAT * n_seats


def encode_view(view: SeatView) -> npt.NDArray[np.float32]:
    """The view as a vector (layout in the module docstring)."""
    rules = view.rules
    n = len(view.names)
    out = np.zeros(observation_size(rules, n), dtype=np.float32)
    for card in view.hand or ():
        out[card] = 1.0
    at = 52
    if rules.pass_the_trash:
        if view.passed is not None:
            out[at + view.passed] = 1.0
        if view.received is not None:
            out[at + 52 + view.received] = 1.0
        at += 104
    out[at] = view.phase is Phase.PASS
    out[at + 1] = view.phase is Phase.DECLARE
    ante = rules.ante
    out[at + 2: at + 5] = (view.pot / ante, view.owed / ante, view.reserve / ante)
    at += 5
    for j in range(n):
        seat = (view.seat + j) % n
        base = at + _PER_SEAT * j
        out[base] = view.stacks[seat] / ante
        out[base + 1] = view.dealt_in[seat]
        out[base + 2] = view.declared[seat]
        out[base + 3] = seat == view.dealer
        declaration = view.declarations[seat]
        if declaration is not None:
            out[base + 4 + DECLARATIONS.index(declaration)] = 1.0
    return out


def describe_view(view: SeatView) -> str:
    """The view as a compact, deterministic string (OpenSpiel's information state):
    seat, dealer, hand (cards in code order: the order they were dealt in is not
    information), pot, stacks and the declarations the seat may see.

    >>> from gutskit.core.engine import deal_from_rng, new_session
    >>> from gutskit.core.views import view_for
    >>> import random
    >>> state, _ = deal_from_rng(new_session(["A", "B"], 100), random.Random(1))
    >>> describe_view(view_for(state, 1))  # doctest: +ELLIPSIS
    'seat 1 dealer 0 hand ... pot 2 stacks 99,99 calls ?,?'
    """
    hand = " ".join(card_name(c) for c in sorted(view.hand)) if view.hand else "-"
    calls = ",".join("?" if d is None else d.value for d in view.declarations)
    text = (f"seat {view.seat} dealer {view.dealer} hand {hand} pot {view.pot} "
            f"stacks {','.join(str(s) for s in view.stacks)} calls {calls}")
    if view.passed is not None or view.received is not None:
        text += (f" passed {'-' if view.passed is None else card_name(view.passed)}"
                 f" received {'-' if view.received is None else card_name(view.received)}")
    return text
