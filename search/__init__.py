"""Information-set search and the agents built on it (see DESIGN.md "Search")."""
