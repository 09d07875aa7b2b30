"""Rule-based agents, one module per game, each exposing ``HeuristicAgent``."""
