"""The command-line apps, in one place: ``sam-play`` (:mod:`.play`) and ``sam-eval`` (:mod:`.evaluate`).

They sit on top of everything else (bots, evaluation) and nothing imports them; :mod:`.options` holds
the options both share (which rules, which bots).
"""
