"""An event: a Swiss tournament of one game on the referee (TOURNAMENT.md T1-T14)."""
