"""Wave function collapse for MiniGrid's ``MiniGrid-WFC-*`` ids, as a fixed-shape JAX program.

* `presets`: MiniGrid 3.2.0's six registered presets (pattern image, pattern width, wrapping).
* `png`: a stdlib-only reader for the shipped pattern images (``patterns/*.png``).
* `patterns`: the overlapping model's tables, as MiniGrid's ``wfclogic`` builds them.
* `program`: a preset's solver constants (bit sets, the initial wave), built on the host.
* `propagation`: arc consistency by block revisions (jittable).
* `solver`: MiniGrid's solver loop, restarts included, in one bounded `lax.while_loop`.
* `level`: MiniGrid's post-processing into a level (largest component, agent and goal).

The family module is `horizax.grid.envs.wfc`. Nothing here runs at import: the images are
read when a preset's program is first built.
"""
