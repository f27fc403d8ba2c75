"""Real-browser tests of the web game (a package, so that its fixtures end with it)."""
