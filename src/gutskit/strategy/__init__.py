"""Strategy on top of the rules core: hand tables, odds, the equilibrium solver, bots,
the vectorized simulator, tournaments and hand-history analysis.

Imports ``gutskit.core`` (and ``gutskit.io`` for stored histories); never the server or CLI.
"""
