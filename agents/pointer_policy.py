"""The policy of the pointer encoding (docs/encodings.md): it scores each legal move from its features.

The observation the policy sees is the seat's observation (``observation_size`` values) followed by the ``moves``
table, ``rows`` rows of ``features`` values (``agents.base.policy_observation``). An MLP embeds the observation;
one shared MLP scores every row from the embedding and the row's features, so a move's logit depends on what the
move is, not on the row it happens to stand in; the value comes from the embedding. The mask (rows beyond the
legal moves) is MaskablePPO's.
"""
from __future__ import annotations

import torch
import torch.nn.functional as F
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from torch import nn


def _mlp(sizes: list[int], activation: type[nn.Module]) -> nn.Sequential:
    layers: list[nn.Module] = []
    for width_in, width_out in zip(sizes, sizes[1:]):
        layers += [nn.Linear(width_in, width_out), activation()]
    return nn.Sequential(*layers)


class PointerNetwork(nn.Module):
    """The actor gives one logit per row; the critic the embedding the value is read from."""

    def __init__(self, observation_size: int, rows: int, features: int, net_arch: list[int],
                 activation: type[nn.Module]):
        super().__init__()
        self.observation_size, self.rows, self.features = observation_size, rows, features
        self.embed = _mlp([observation_size, *net_arch], activation)
        width = net_arch[-1]
        self.score = nn.Sequential(_mlp([width + features, width], activation), nn.Linear(width, 1))
        self.value = _mlp([observation_size, *net_arch], activation)

    # the sizes SB3's policy reads to build its action and value layers
    @property
    def latent_dim_pi(self) -> int:
        return self.rows

    @property
    def latent_dim_vf(self) -> int:
        return self.value[-2].out_features

    def forward_actor(self, x: torch.Tensor) -> torch.Tensor:
        state = self.embed(x[:, :self.observation_size])
        table = x[:, self.observation_size:].reshape(-1, self.rows, self.features)
        # Speed: the legal moves fill the first rows and the rest are zeros the mask removes, so only the rows up
        # to the last one in use are scored (the others' logits are 0), and the first layer's state half is
        # computed once per observation, not once per row: the same logits for every legal row.
        in_use = table.any(dim=2) * torch.arange(1, self.rows + 1, device=x.device)
        used = max(int(in_use.max()), 1) if len(table) else 1
        first, activation = self.score[0]
        width = state.shape[1]
        hidden = activation(F.linear(state, first.weight[:, :width], first.bias).unsqueeze(1)
                            + F.linear(table[:, :used], first.weight[:, width:]))
        return F.pad(self.score[1](hidden).squeeze(-1), (0, self.rows - used))

    def forward_critic(self, x: torch.Tensor) -> torch.Tensor:
        return self.value(x[:, :self.observation_size])

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.forward_actor(x), self.forward_critic(x)


class PointerPolicy(MaskableActorCriticPolicy):
    """MaskablePPO's policy with ``PointerNetwork`` in place of its MLP; the row logits are the action's logits."""

    def __init__(self, observation_space, action_space, lr_schedule, rows: int, features: int, **kwargs):
        self.rows, self.features = rows, features
        super().__init__(observation_space, action_space, lr_schedule, **kwargs)

    def _build_mlp_extractor(self) -> None:
        observation_size = self.features_dim - self.rows * self.features
        self.mlp_extractor = PointerNetwork(observation_size, self.rows, self.features, list(self.net_arch),
                                            self.activation_fn)

    def _build(self, lr_schedule) -> None:
        super()._build(lr_schedule)
        # the network's row scores are the logits: the action layer is the identity, and is not trained
        with torch.no_grad():
            self.action_net.weight.copy_(torch.eye(self.rows))
            self.action_net.bias.zero_()
        self.action_net.requires_grad_(False)

    def _get_constructor_parameters(self) -> dict:
        return {**super()._get_constructor_parameters(), "rows": self.rows, "features": self.features}
