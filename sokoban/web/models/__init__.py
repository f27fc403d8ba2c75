"""The pydantic models of every request and answer: the game's (``game``), the
competitive side's (``compete``), and levels to and from them (``convert``)."""
