"""Research environments on top of the rules engine (:mod:`gutskit.core`): a PettingZoo
parallel environment (:mod:`gutskit.envs.pettingzoo_env`) and an OpenSpiel game
(:mod:`gutskit.envs.openspiel_game`), both observing the table only through
:func:`gutskit.core.views.view_for` (:mod:`gutskit.envs.encoding`).

Nothing here is imported by ``import gutskit``; the two modules import PettingZoo /
OpenSpiel (the ``research`` extra) when they are imported themselves.
"""
