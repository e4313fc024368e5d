"""Shared test settings: a fast hypothesis profile and a seeded random generator."""

import numpy as np
import pytest
from hypothesis import settings

settings.register_profile("mscustom", max_examples=25, deadline=None)
settings.load_profile("mscustom")


@pytest.fixture
def rng():
    """A NumPy generator with a fixed seed, so failures reproduce."""
    return np.random.default_rng(0)
