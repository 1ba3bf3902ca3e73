"""Optional adapters: play any rule file through OpenSpiel or PettingZoo.

`observation` encodes what a player sees as a flat list of numbers (no extra needed);
`openspiel` needs the `openspiel` extra and `pettingzoo` the `pettingzoo` extra.
"""
