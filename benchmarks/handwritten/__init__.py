"""Hand-written Python versions of the reference games, used only as speed baselines."""
