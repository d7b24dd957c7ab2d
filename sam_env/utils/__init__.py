"""The project's own plumbing, beside the environment rather than in it.

* :mod:`.deprecation` — old names kept for one release, with a warning that names the new one;
* :mod:`.extras` — optional extras imported on first use, a missing one named with its install command;
* :mod:`.config_files` — a mapping of options read from a YAML or JSON file (rules and training configs).
"""
