"""Initial-condition sampling."""

from horizax.orbital.sampling.mass import ConstantMass, UniformMass
from horizax.orbital.sampling.side import RelativeEllipse
from horizax.orbital.sampling.spec import ICSpec
from horizax.orbital.sampling.validators import MaxRange, MinSeparation

__all__ = ["ConstantMass", "ICSpec", "MaxRange", "MinSeparation", "RelativeEllipse", "UniformMass"]
