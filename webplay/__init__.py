"""Play in the browser: ``python play.py --web`` serves one page for every game (docs/play.md)."""
