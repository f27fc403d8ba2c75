"""The browser game's server: a FastAPI application (:func:`create_app`) over the toolkit.

Importing this package starts nothing; ``sokoban serve`` runs the server (see
``docs/web.md``).
"""

from sokoban.web.app import create_app
from sokoban.web.settings import MAX_TIME_LIMIT, Settings

__all__ = ["MAX_TIME_LIMIT", "Settings", "create_app"]
