"""A family's object model as attributes of a Gymnasium env, for the reference's own wrappers.

Some reference libraries' wrappers read the environment's objects rather than its
observations: MiniGrid's ``FullyObsWrapper``, ``RGBImgObsWrapper``, ``NoDeath``, ... read
``env.unwrapped.grid``, ``agent_pos``, ``carrying``, ``get_frame``. A family that can answer
them offers an *object model* through its protocol view's optional ``object_model()`` method
(`horizax.core.protocol`; the gridworld's is `horizax.grid.minigrid_view.MiniGridObjectModel`).
`ObjectModelAttributes` turns it into attributes of the Gymnasium env, without naming the
family. An object model has:

* ``names`` and ``settable``: the attribute names it answers, and those users may assign
  (rendering options);
* ``new_view()``: an empty view (it may import the reference library, and raise
  `ImportError` naming the extra that installs it);
* ``update(view, state)``: the view filled with an unbatched protocol state;
* ``read(view, name)``: one attribute of a filled view.

The view is read-only: it is rebuilt from the horizax state after every ``reset`` and
``step``, and only when an attribute is read, so changes made to it are not written back;
assigning an attribute of the model that is not ``settable`` raises `AttributeError`.
"""

from __future__ import annotations

from typing import Any

__all__ = ["ObjectModelAttributes"]


class ObjectModelAttributes:
    """Mixin: the object model of ``self.fenv`` (if it offers one) as attributes.

    The host sets ``self.fenv`` (a protocol view) and keeps its current episode in
    ``self._episode`` (``None`` before the first reset), an object replaced on every reset
    and step, whose ``state`` is the protocol state.
    """

    def _object_model(self) -> Any:
        cache = self.__dict__.get("_object_model_cache") or {}
        if "model" not in cache:
            fenv = self.__dict__.get("fenv")
            if fenv is None:  # half-built (pickle, copy): do not cache the absence
                return None
            make_model = getattr(fenv, "object_model", None)
            cache["model"] = make_model() if callable(make_model) else None
            self.__dict__["_object_model_cache"] = cache
        return cache["model"]

    @property
    def object_view(self) -> Any:
        """The object model's view of the current state (rebuilt when the state changed).

        Raises:
            AttributeError: for an environment without an object model.
            ImportError: without the reference package the model is built from.
        """
        return self._view()

    def _view(self) -> Any:
        model = self._object_model()
        if model is None:
            raise AttributeError(f"{type(self).__name__} of this environment has no object model")
        cache = self.__dict__["_object_model_cache"]
        if "view" not in cache:
            cache["view"] = model.new_view()
            for name, value in cache.get("options", {}).items():
                setattr(cache["view"], name, value)
        episode = self.__dict__.get("_episode")
        if episode is not None and cache.get("episode") is not episode:
            model.update(cache["view"], episode.state)
            cache["episode"] = episode
        return cache["view"]

    def __getattr__(self, name: str) -> Any:
        # Only reached for attributes the env lacks, or when a property raised
        # AttributeError (``object_view`` of a model-less env: answered with its reason).
        # Private and dunder names (pickle and copy probe them on half-built objects) never
        # build a view.
        if name == "object_view":
            return self._view()
        if not name.startswith("_"):
            model = self._object_model()
            if model is not None and name in model.names:
                return model.read(self._view(), name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __setattr__(self, name: str, value: Any) -> None:
        model = None if name.startswith("_") else self._object_model()
        if model is not None and name in model.names:
            if name not in model.settable:
                raise AttributeError(
                    f"{name} is part of a read-only view of the horizax state; it cannot be "
                    "assigned (settable: " + ", ".join(sorted(model.settable)) + ")"
                )
            cache = self.__dict__["_object_model_cache"]
            cache.setdefault("options", {})[name] = value
            if "view" in cache:
                setattr(cache["view"], name, value)
            return
        super().__setattr__(name, value)

    def __getstate__(self) -> dict[str, Any]:
        # The view and the model are rebuilt on demand (MiniGrid's view holds a lambda).
        state = dict(self.__dict__)
        cache = state.pop("_object_model_cache", None)
        if cache and cache.get("options"):
            state["_object_model_cache"] = {"options": dict(cache["options"])}
        return state
