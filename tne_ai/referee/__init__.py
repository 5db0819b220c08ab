"""The referee (docs/match.md): `tne-ai match` plays engine processes that speak the protocol against each other.

match  seats told only their share, clocks, forfeits, rotation over paired deals, records, SPRT.
"""
