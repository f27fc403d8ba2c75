"""The routes, one module per area: levels, solve, play, pages, players, scores, daily,
race (``deps`` holds what the competitive ones share)."""
