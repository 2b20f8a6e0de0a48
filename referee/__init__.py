"""The referee service: rulings, and (with its issue) games, seats, the log and the CLI."""
