"""Per-env model parameters: ``get_model`` / ``set_model`` on every pool."""

from __future__ import annotations

import difflib
from typing import Any

import numpy as np


class ModelMixin:
    """A pool's per-env model parameters (MuJoCo and dm_control envs, whose engine envs
    offer their mjModel fields by name; on any other pool both methods raise TypeError)."""

    def _model_call(self, call: str, field: Any, env_ids: Any, *args: Any) -> Any:
        pool = self._pool  # type: ignore[attr-defined]
        if not isinstance(field, str):
            raise TypeError(f"field must be a model field name (str), got {type(field).__name__}")
        if not hasattr(pool, "env_array_spec"):
            raise TypeError(f"{self._no_model()} (its envs run outside the engine)")
        if isinstance(env_ids, (int, np.integer)):
            env_ids = [int(env_ids)]
        try:
            dtype, shape = pool.env_array_spec(field, env_ids)
        except KeyError:
            names = pool.env_array_names(0 if env_ids is None or len(env_ids) == 0 else int(env_ids[0]))
            close = difflib.get_close_matches(field, names, n=3)
            hint = f"; did you mean {', '.join(map(repr, close))}?" if close else ""
            raise KeyError(
                f"{field!r} is not a field of this pool's models (mjModel array fields by MuJoCo's names, "
                f"e.g. 'body_mass', and 'opt.<name>', e.g. 'opt.gravity'){hint}"
            ) from None
        except TypeError as e:
            if "no named parameter arrays" not in str(e):
                raise
            raise TypeError(self._no_model()) from None
        if call == "get":
            return pool.get_env_array(field, env_ids)
        (values,) = args
        n = self._num_envs if env_ids is None else len(env_ids)  # type: ignore[attr-defined]
        arr = np.asarray(values)
        if arr.dtype.kind not in "biuf":
            raise ValueError(f"set_model({field!r}): values must be numbers, got dtype {arr.dtype}")
        if arr.shape == tuple(shape):
            arr = np.broadcast_to(arr, (n, *shape))
        if arr.shape != (n, *shape):
            raise ValueError(
                f"set_model({field!r}): values must have shape {(n, *shape)} (one row per env named) or "
                f"{tuple(shape)} (the same for every env named), got {arr.shape}"
            )
        if not np.all(np.isfinite(arr)):
            raise ValueError(f"set_model({field!r}): values must be finite")
        pool.set_env_array(field, np.ascontiguousarray(arr, dtype=dtype), env_ids)
        return None

    def _no_model(self) -> str:
        return (
            f"{self.spec.task_id}: get_model/set_model need a pool of MuJoCo or dm_control envs; "  # type: ignore[attr-defined]
            "this pool's envs have no model"
        )

    def get_model(self, field: str, env_ids: Any = None) -> np.ndarray:
        """The model field ``field`` of the envs ``env_ids`` (default: every env): an array
        ``(n, *shape)``, row i of env ``env_ids[i]``, with the field's MuJoCo dtype and shape
        (``model.<field>`` of the mujoco bindings; ``"opt.gravity"`` etc. for mjOption).

        Works on MuJoCo and dm_control pools; any other pool raises TypeError. An unknown
        field raises KeyError; an env in flight (async: sent, not received), ValueError.
        During an episode with ``model_randomization`` it holds that episode's values.
        """
        return self._model_call("get", field, env_ids)

    def set_model(self, field: str, values: Any, env_ids: Any = None) -> None:
        """Sets the model field ``field`` of the envs ``env_ids`` (default: every env) to
        ``values``, of shape ``(n, *shape)`` (row i for env ``env_ids[i]``) or the field's
        ``shape`` (the same for every env named). Float fields only (integer fields are the
        model's structure). It takes effect before each env's next step, from its current
        state; a field that ``mj_setConst`` reads (``body_mass``, ``body_inertia``,
        ``actuator_gear``, ...) recomputes the model's derived constants. It also becomes the
        base that ``model_randomization`` draws around.

        An env keeps sharing the pool's one compiled model until a field of it is set (copy
        on write). Works on MuJoCo and dm_control pools; any other pool raises TypeError. An
        unknown field raises KeyError; a wrong shape, non-finite values, an integer field or
        an env in flight, ValueError; nothing changes then.
        """
        self._model_call("set", field, env_ids, values)
