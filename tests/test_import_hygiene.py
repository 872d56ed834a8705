"""Importing horizax runs no JAX computation, so forking after import is safe.

An initialised XLA backend owns threads that a forked child inherits in an unknown state, so
the checks run in fresh interpreters and look for an initialised backend after the imports.
"""

import json
import subprocess
import sys
import textwrap

import pytest

# Adapter module -> the optional distribution's import name; a private helper module has none,
# and an adapter not listed here is taken to need the package of its own name.
_ADAPTER_DEPENDENCY = {
    "gymnasium_spaces": "gymnasium",
    "gymnasium_vector": "gymnasium",
    "forking": "jax",
}

_IMPORT_EVERYTHING = textwrap.dedent(
    """
    import importlib, importlib.util, json, pkgutil, traceback
    import horizax

    dependency_of = json.loads(DEPENDENCIES)
    imported, skipped, errors = [], [], {}
    names = ["horizax"] + sorted(
        info.name for info in pkgutil.walk_packages(horizax.__path__, "horizax.")
    )
    for name in names:
        stem = name.rsplit(".", 1)[-1]
        if name.startswith("horizax.adapters.") and not stem.startswith("_"):
            needed = dependency_of.get(stem, stem)
            # Skip only an adapter whose own dependency is absent: when it is installed, any
            # import error (even of a package it needs transitively) fails the test.
            if importlib.util.find_spec(needed) is None:
                skipped.append(name)
                continue
        try:
            importlib.import_module(name)
            imported.append(name)
        except Exception:
            errors[name] = traceback.format_exc(limit=3)
    ids = horizax.registered_ids()

    from jax._src import xla_bridge
    print(json.dumps({
        "imported": imported,
        "skipped": skipped,
        "errors": errors,
        "ids": len(ids),
        "backends": sorted(xla_bridge._backends),
        "initialised": xla_bridge.backends_are_initialized(),
    }))
    """
)


def _run(code: str, timeout: float) -> dict:
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout
    )
    assert result.returncode == 0, f"the child interpreter failed:\n{result.stderr}"
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_importing_every_module_initialises_no_xla_backend():
    code = f"DEPENDENCIES = {json.dumps(json.dumps(_ADAPTER_DEPENDENCY))}\n" + _IMPORT_EVERYTHING
    report = _run(code, timeout=300)
    assert not report["errors"], f"modules failed to import: {report['errors']}"
    assert "horizax.grid.envs.crossing" in report["imported"], "the walk missed the families"
    assert report["ids"] > 0, "registered_ids() discovered no environment"
    # A module-level jnp/jax.random call creates the CPU client; nothing may before `make`.
    assert not report["backends"] and not report["initialised"], (
        f"importing horizax initialised XLA backends {report['backends']}; "
        f"imported {len(report['imported'])} modules, skipped {report['skipped']}"
    )


def test_gymnasium_async_vector_env_forks_after_import():
    code = textwrap.dedent(
        """
        import json
        import gymnasium
        import numpy as np
        import horizax.adapters.gymnasium  # noqa: F401  (registers the ids)
        from jax._src import xla_bridge

        clean = not xla_bridge._backends
        envs = gymnasium.make_vec(
            "horizax/MiniGrid-Empty-5x5-v0", num_envs=2, vectorization_mode="async",
            # The mission (Text) cannot travel through shared memory (TextSpace).
            vector_kwargs={"context": "fork"},
        )
        try:
            obs, _ = envs.reset(seed=0)
            obs, reward, terminated, truncated, _ = envs.step(np.array([2, 2]))
        finally:
            envs.close()
        print(json.dumps({
            "clean": clean,
            "batch": int(np.asarray(reward).shape[0]),
            "flags": [bool(np.asarray(terminated).any()), bool(np.asarray(truncated).any())],
        }))
        """
    )
    pytest.importorskip("gymnasium", reason="the gymnasium extra is not installed")
    # A child forked from a parent with a live XLA client can deadlock: the timeout catches it.
    report = _run(code, timeout=120)
    assert report["clean"], "importing the gymnasium adapter initialised an XLA backend"
    assert report["batch"] == 2, "the async vector env did not step both copies"
    assert report["flags"] == [False, False], "one forward step in Empty-5x5 cannot end"
