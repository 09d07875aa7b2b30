"""The entity policy (``ppo.policy: entities``, docs/training.md): flat actions that name things scored from the
things' own rows.

A flat encoding gives an action naming a province the same output unit whatever the province's state: an MLP must
learn, for each of the 40 province actions apart, which of the observation's values describe that province.
Where the game's encoder declares such groups (``ObservationEncoder.action_entities``), this policy encodes each
thing's row (its observation values and a learned embedding of which thing it is) with one MLP shared by the
group, pools the rows (max and mean) into the state's embedding, and adds to each such action's logit a score of
(the state's embedding, the thing's encoding), again one network per group. Every other action has its logit from
the state's embedding alone, as in the MLP policy. The value comes from an MLP of the observation.
"""
from __future__ import annotations

import torch
from torch import nn

from .logits_policy import LogitsPolicy, mlp

ENTITY_WIDTH = 64  # width of a thing's encoding and of its score's hidden layer
IDENTITY_WIDTH = 16  # the learned embedding of which thing a row describes


class EntityGroup(nn.Module):
    """One group's networks: the rows' encoder, their identities and the score of an action from a row."""

    def __init__(self, first_action: int, features: list[list[int]], width: int, activation: type[nn.Module]):
        super().__init__()
        self.first_action, self.count = first_action, len(features)
        self.register_buffer("index", torch.as_tensor(features, dtype=torch.long), persistent=False)
        self.identity = nn.Parameter(torch.randn(self.count, IDENTITY_WIDTH) * 0.1)
        self.encode = mlp([len(features[0]) + IDENTITY_WIDTH, ENTITY_WIDTH, ENTITY_WIDTH], activation)
        # the score's hidden layer of (state, thing), its state half computed once per observation
        self.state_half = nn.Linear(width, ENTITY_WIDTH)
        self.thing_half = nn.Linear(ENTITY_WIDTH, ENTITY_WIDTH, bias=False)
        self.activation = activation()
        self.score = nn.Linear(ENTITY_WIDTH, 1)

    def rows(self, x: torch.Tensor) -> torch.Tensor:
        identity = self.identity.unsqueeze(0).expand(len(x), -1, -1)
        return self.encode(torch.cat((x[:, self.index], identity), dim=2))

    def scores(self, state: torch.Tensor, rows: torch.Tensor) -> torch.Tensor:
        hidden = self.activation(self.state_half(state).unsqueeze(1) + self.thing_half(rows))
        return self.score(hidden).squeeze(-1)


class EntityNetwork(nn.Module):
    """The actor gives one logit per action; the critic the embedding the value is read from."""

    def __init__(self, observation_size: int, num_actions: int, entities: list[tuple[int, list[list[int]]]],
                 net_arch: list[int], activation: type[nn.Module]):
        super().__init__()
        width = net_arch[-1]
        self.num_actions = num_actions
        self.groups = nn.ModuleList(EntityGroup(first, features, width, activation) for first, features in entities)
        self.embed = mlp([observation_size + 2 * ENTITY_WIDTH * len(entities), *net_arch], activation)
        self.logits = nn.Linear(width, num_actions)
        self.value_net = mlp([observation_size, *net_arch], activation)

    # the sizes SB3's policy reads to build its action and value layers
    @property
    def latent_dim_pi(self) -> int:
        return self.num_actions

    @property
    def latent_dim_vf(self) -> int:
        return self.value_net[-2].out_features

    def forward_actor(self, x: torch.Tensor) -> torch.Tensor:
        rows = [group.rows(x) for group in self.groups]
        pooled = [part for encoded in rows for part in (encoded.max(dim=1).values, encoded.mean(dim=1))]
        state = self.embed(torch.cat((x, *pooled), dim=1))
        logits = self.logits(state)
        for group, encoded in zip(self.groups, rows):
            start = group.first_action
            logits = torch.cat((logits[:, :start], logits[:, start:start + group.count] + group.scores(state, encoded),
                                logits[:, start + group.count:]), dim=1)
        return logits

    def forward_critic(self, x: torch.Tensor) -> torch.Tensor:
        return self.value_net(x)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.forward_actor(x), self.forward_critic(x)


class EntityPolicy(LogitsPolicy):
    """MaskablePPO's policy with ``EntityNetwork`` in place of its MLP. ``entities``: per group, its first action
    and its rows' observation indices (``ObservationEncoder.action_entities``)."""

    def __init__(self, observation_space, action_space, lr_schedule, entities: list, **kwargs):
        self.entities = [(int(first), [list(map(int, row)) for row in features]) for first, features in entities]
        super().__init__(observation_space, action_space, lr_schedule, **kwargs)

    def _build_mlp_extractor(self) -> None:
        self.mlp_extractor = EntityNetwork(self.features_dim, int(self.action_space.n), self.entities,
                                           list(self.net_arch), self.activation_fn)

    def _get_constructor_parameters(self) -> dict:
        return {**super()._get_constructor_parameters(), "entities": self.entities}
