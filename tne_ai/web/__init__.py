"""`tne-ai serve`: the web application (Starlette app in app.py, game sessions in games.py)."""
