"""The policy of the pointer encoding (docs/encodings.md): it scores each legal move from its parts.

The observation the policy sees is the seat's observation (``observation_size`` values) followed by the ``moves``
table, ``rows`` rows of one value per part (the part's value plus one, 0 in a row without a move;
``agents.base.policy_observation``). An MLP embeds the observation; each legal move is scored by one network shared
by all rows, of the embedding and the move's parts (a learned vector per value of each part, summed: the same
first layer as a one-hot of every part), so a move's logit depends on what the move is, not on the row it happens
to stand in; the value comes from an MLP of the observation. Rows without a move are not scored (logit 0, and the
mask, MaskablePPO's, removes them).
"""
from __future__ import annotations

import numpy as np
import torch
from torch import nn

from .logits_policy import LogitsPolicy, mlp


class PointerNetwork(nn.Module):
    """The actor gives one logit per row; the critic the embedding the value is read from."""

    def __init__(self, observation_size: int, rows: int, parts: list[int], net_arch: list[int],
                 activation: type[nn.Module]):
        super().__init__()
        self.observation_size, self.rows, self.num_parts = observation_size, rows, len(parts)
        self.embed = mlp([observation_size, *net_arch], activation)
        width = net_arch[-1]
        # the score's hidden layer: the state's half, and a vector per value of each part (part p's value v is
        # row offsets[p] + v)
        self.state_half = nn.Linear(width, width)
        self.part_values = nn.Embedding(int(sum(parts)), width)
        self.register_buffer("offsets", torch.as_tensor(np.cumsum([0, *parts[:-1]]), dtype=torch.long),
                             persistent=False)
        self.activation = activation()
        self.score = nn.Linear(width, 1)
        self.value = mlp([observation_size, *net_arch], activation)

    # the sizes SB3's policy reads to build its action and value layers
    @property
    def latent_dim_pi(self) -> int:
        return self.rows

    @property
    def latent_dim_vf(self) -> int:
        return self.value[-2].out_features

    def forward_actor(self, x: torch.Tensor) -> torch.Tensor:
        state = self.embed(x[:, :self.observation_size])
        table = x[:, self.observation_size:].reshape(-1, self.rows, self.num_parts)
        sample, row = (table[:, :, 0] > 0).nonzero(as_tuple=True)  # the rows that hold a move
        values = table[sample, row].long() - 1 + self.offsets
        hidden = self.activation(self.state_half(state)[sample] + self.part_values(values).sum(dim=1))
        logits = torch.zeros(len(x), self.rows, dtype=x.dtype, device=x.device)
        return logits.index_put((sample, row), self.score(hidden).squeeze(-1))

    def forward_critic(self, x: torch.Tensor) -> torch.Tensor:
        return self.value(x[:, :self.observation_size])

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.forward_actor(x), self.forward_critic(x)


class PointerPolicy(LogitsPolicy):
    """MaskablePPO's policy with ``PointerNetwork`` in place of its MLP; the row logits are the action's logits.
    ``parts``: the number of values of each part (the codec's ``nvec``)."""

    def __init__(self, observation_space, action_space, lr_schedule, rows: int, parts: list[int], **kwargs):
        self.rows, self.parts = rows, [int(size) for size in parts]
        super().__init__(observation_space, action_space, lr_schedule, **kwargs)

    def _build_mlp_extractor(self) -> None:
        observation_size = self.features_dim - self.rows * len(self.parts)
        self.mlp_extractor = PointerNetwork(observation_size, self.rows, self.parts, list(self.net_arch),
                                            self.activation_fn)

    def _get_constructor_parameters(self) -> dict:
        return {**super()._get_constructor_parameters(), "rows": self.rows, "parts": self.parts}
