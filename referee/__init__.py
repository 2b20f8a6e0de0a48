"""The referee: games over a signed, hash-chained log; seats and what each may see; the game
interface and its modules (one package a game); rulings; the referee's commands.

``referee.service.Referee`` is the front (docs/service.md); ``referee.game`` the interface a
game module implements; ``referee.games`` the registry (docs/architecture.md)."""
