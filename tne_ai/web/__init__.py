"""`tne-ai serve`: the web application (Starlette app in app.py, game sessions in games.py, review and watching in replay.py, the command in serve.py)."""
