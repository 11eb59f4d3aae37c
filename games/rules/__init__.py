"""Pure rules packages, one per game. Nothing here imports Django."""
