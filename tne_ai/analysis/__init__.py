"""Analysis for players and programs (docs/analysis.md), from what one seat knows.

knowledge  a seat's knowledge: public position, own hand, seat records, swapped tiles;
analyze    `tne-ai analyze`: search a position and rank its candidate decisions;
review     `tne-ai review`: the value each decision of a game lost;
server     `tne-ai analysis-server`: JSON-lines queries for programs (KataGo-style).
"""
