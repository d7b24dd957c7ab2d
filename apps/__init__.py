"""The command-line apps, in one place: ``sam-play`` (:mod:`.play`), ``sam-eval`` (:mod:`.evaluate`),
``sam-exploit`` (:mod:`.exploit`, the ``train`` extra) and ``sam-web`` (:mod:`.web`).

They sit on top of everything else (bots, evaluation) and nothing imports them; :mod:`.options` holds
the options both share (which rules, which bots).
"""

if __name__ == "apps":  # imported by its pre-0.3 name from a source checkout: serve sam_env.apps
    from sam_env.utils.deprecation import redirect_moved_package

    redirect_moved_package(__name__)
