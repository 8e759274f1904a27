"""The pure rules core of gutskit: no I/O, no clock, randomness passed in.

Cards, hand evaluation, house rules, the hand-history events, the money rules
(settlement), the engine's state machine, what each viewer may see (views), the hand
history format, the referee, the ledger and who-pays-whom. Nothing here imports from
``gutskit.strategy``, ``gutskit.io``, ``gutskit.server`` or ``gutskit.cli``.
"""
