if __name__ == "agents":  # imported by its pre-0.3 name from a source checkout: serve sam_env.agents
    from sam_env.utils.deprecation import redirect_moved_package

    redirect_moved_package(__name__)
