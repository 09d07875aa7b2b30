"""Terminal rewards from final placements.

Two players: +1 for the better placement, -1 for the worse, 0 each on a tie.
More players: rank-based and zero-sum. Seats are ranked by placement score; rank r (0 = best) of N
earns ``1 - 2 r / (N - 1)``, so first gets +1, last gets -1 and the values sum to 0. Tied seats
share the mean of the ranks they span. With a single winner and the rest tied this gives the
winner +1 and everyone else -1/(N-1).

Team games (the engine sets ``team_of``): the teams are ranked by their placement score as if each
team were one player, and every member gets its team's reward, so two teams get +1 and -1.
"""
from __future__ import annotations


def rank_rewards(placement: list[float]) -> list[float]:
    n = len(placement)
    if n == 1:
        return [0.0]
    order = sorted(range(n), key=lambda i: -placement[i])
    rewards = [0.0] * n
    i = 0
    while i < n:
        j = i
        while j + 1 < n and placement[order[j + 1]] == placement[order[i]]:
            j += 1
        mean_rank = (i + j) / 2
        value = 1.0 - 2.0 * mean_rank / (n - 1)
        for k in range(i, j + 1):
            rewards[order[k]] = value
        i = j + 1
    return rewards


def team_rank_rewards(placement: list[float], team_of: list[int]) -> list[float]:
    """Per seat, its team's rank reward; a team's placement is its best member's (members share it)."""
    teams = sorted(set(team_of))
    best = [max(placement[s] for s in range(len(placement)) if team_of[s] == t) for t in teams]
    per_team = dict(zip(teams, rank_rewards(best)))
    return [per_team[t] for t in team_of]
