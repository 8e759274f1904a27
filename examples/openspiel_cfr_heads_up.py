"""OpenSpiel learns heads-up two-card Guts; gutskit's certified solver measures it.

OpenSpiel's external-sampling Monte Carlo CFR (``pyspiel.ExternalSamplingMCCFRSolver``)
plays the gutskit OpenSpiel game (:mod:`gutskit.envs.openspiel_game`: one round on the
rules engine, the pot left on the table shared at the end, zero-sum). Its average policy
is read as an in-probability per hand and seat (1,326 hands), and its exploitability is
computed *exactly* (joint card removal, no sampling) by
:func:`gutskit.strategy.certify.exploitability` in the recursive model, which is this
game heads-up (``tests/test_envs_openspiel.py`` checks the gains hand by hand). For
scale: the certified equilibrium (``certify.load_strategy(2, 2, "recursive")``, in-rate
0.498492) and the uniform random strategy.

Run: python examples/openspiel_cfr_heads_up.py [--iterations N] [--seed S]
(needs the ``research`` extra; about 1.3 ms of CPU per iteration).
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from importlib import metadata

import numpy as np
import pyspiel

from gutskit.core.rules import Rules
from gutskit.envs.openspiel_game import GAME_NAME
from gutskit.strategy import certify
from gutskit.strategy.tables import hand_table


def policy_by_hand(game: pyspiel.Game, policy: pyspiel.Policy) -> np.ndarray:
    """``(2, 1326)``: each seat's probability of *in* for each hand (combination index).
    Seat 1 declares first; seat 0's information state hides seat 1's sealed call, so the
    call made before it (out here) does not matter."""
    table = hand_table(Rules(cards_per_hand=2).ranking)
    out = np.zeros((2, table.n_hands))
    for index, (a, b) in enumerate(table.cards.tolist()):
        x, y = [c for c in range(52) if c not in (a, b)][:2]
        for seat, order in ((1, (a, x, b, y)), (0, (x, a, y, b))):
            state = game.new_initial_state()
            for card in order:
                state.apply_action(card)
            if seat == 0:
                state.apply_action(0)
            assert state.current_player() == seat
            out[seat, index] = policy.action_probabilities(state).get(1, 0.0)
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--iterations", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    ranking = Rules(cards_per_hand=2).ranking
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else 0.0
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"load {load:.2f}; python {platform.python_version()}, open_spiel "
          f"{metadata.version('open_spiel')}, gutskit {metadata.version('gutskit')}")

    def exploit(sigma: np.ndarray) -> float:
        return certify.exploitability(sigma, players=2, ranking=ranking, model="recursive")

    table = hand_table(ranking)
    best = certify.load_strategy(2, 2, "recursive")
    sigma_star = np.asarray(best.probabilities)
    print(f"certified equilibrium: in-rate {sigma_star.mean():.6f}, exploitability "
          f"{exploit(sigma_star):.2e} chips/round (exact)")
    print(f"uniform random (in 1/2): exploitability {exploit(np.full(table.n_hands, 0.5)):.4f}"
          " chips/round (exact)")
    game = pyspiel.load_game(GAME_NAME, {"players": 2, "cards": 2})
    solver = pyspiel.ExternalSamplingMCCFRSolver(game, seed=args.seed)
    checkpoints = sorted({args.iterations // 8, args.iterations // 4, args.iterations // 2,
                          args.iterations} - {0})
    print(f"{'iterations':>10} {'CPU s':>8} {'in-rate':>8} {'exploit. avg':>13} "
          f"{'seat 0':>9} {'seat 1':>9} {'mean |s - s*|':>14}")
    done, cpu = 0, 0.0
    for target in checkpoints:
        start = time.process_time()
        while done < target:
            solver.run_iteration()
            done += 1
        cpu += time.process_time() - start
        sigma = policy_by_hand(game, solver.average_policy())
        mean = sigma.mean(axis=0)
        print(f"{done:>10} {cpu:>8.1f} {mean.mean():>8.4f} {exploit(mean):>13.4f} "
              f"{exploit(sigma[0]):>9.4f} {exploit(sigma[1]):>9.4f} "
              f"{np.abs(mean - sigma_star).mean():>14.4f}")
    print("exploitability: chips per round a best per-hand deviation wins against the "
          "strategy played by both seats (certify, recursive model = this game; exact)")


if __name__ == "__main__":
    main()
