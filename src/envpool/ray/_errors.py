"""The Ray pool's own exception."""

from __future__ import annotations

import numpy as np


class ActorLostError(RuntimeError):
    """An actor of a Ray pool died: its envs (``lost_env_ids``) are gone."""

    def __init__(self, message: str, actor: int, lost_env_ids: np.ndarray) -> None:
        super().__init__(message)
        self.actor = actor
        self.lost_env_ids = lost_env_ids
