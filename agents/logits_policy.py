"""MaskablePPO's policy with a network that gives the action logits itself (the pointer and entity policies)."""
from __future__ import annotations

import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from torch import nn


def mlp(sizes: list[int], activation: type[nn.Module]) -> nn.Sequential:
    """Linear layers of the widths ``sizes``, each followed by ``activation``."""
    layers: list[nn.Module] = []
    for width_in, width_out in zip(sizes, sizes[1:]):
        layers += [nn.Linear(width_in, width_out), activation()]
    return nn.Sequential(*layers)


class LogitsPolicy(MaskableActorCriticPolicy):
    """The network built by ``_build_mlp_extractor`` returns one logit per action as its actor output
    (``latent_dim_pi`` = the number of actions); SB3's action layer after it is the identity, and is not trained."""

    def _build(self, lr_schedule) -> None:
        super()._build(lr_schedule)
        with torch.no_grad():
            self.action_net.weight.copy_(torch.eye(self.action_net.out_features))
            self.action_net.bias.zero_()
        self.action_net.requires_grad_(False)
