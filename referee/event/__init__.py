"""Events (issue 34): Swiss tournaments of one game on the referee (TOURNAMENT.md T1-T14)."""
