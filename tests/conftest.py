"""Suite-wide options: `pytest --device cuda` runs the device-parametrized tests (tests/test_device.py) on a GPU."""

from __future__ import annotations

import pytest

DEVICES: tuple[str, ...] = ("cpu", "cuda")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--device", choices=DEVICES, default="cpu",
                     help="where the device tests run their models: cpu (default) or cuda (skipped, with the reason "
                          "shown, when no CUDA device is present)")


@pytest.fixture(scope="session")
def device(request: pytest.FixtureRequest) -> str:
    """The device the entry points run on in tests/test_device.py."""
    name = str(request.config.getoption("--device"))
    if name == "cuda":
        import torch

        if not torch.cuda.is_available():
            pytest.skip("--device cuda: no CUDA device is available on this machine")
    return name
