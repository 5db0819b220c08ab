"""Many games between in-process agents: the arena, the backends that play them, and the statistics that judge them.

runner    plays games and matches of agents (ISMCTS, greedy, random, params files), with records and resume;
backends  the local process pool and Ray, the same games on either;
sprt      Wilson intervals, Elo, and the sequential probability ratio test over paired games.

The command line is `tne-ai arena` (tne_ai/cli/arena.py). This package imports engine
and the search proper, never the application layer.
"""
