"""Information-set search and what is built on it: ISMCTS, the agents, the arena, analysis and game review (README "Layout")."""
