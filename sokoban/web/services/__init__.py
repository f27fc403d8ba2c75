"""What the routes use: the solver pool, the library of collections, the competitive
state and its level resolver, the daily maker, the race hub, rate limits."""
