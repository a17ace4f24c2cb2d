"""Config knobs retired in issue 28, each at the value every shipped checkpoint had (its code path was off).

They are gone from the schema, the YAML files and the code. A checkpoint's recorded config may still name them (the
shipped ones do, at these values); one that sets a retired knob to anything else was trained with code that no longer
exists, and is refused rather than answered differently.
"""

from __future__ import annotations

from typing import Any, Mapping

RETIRED: dict[str, dict[str, Any]] = {
    # symmetry breakers of the evidence grounding (a digit embedding, cell features); clamping sure cells when answering
    "model": {"digit_dim": 0, "cell_dim": 0, "clamp_every": 0},
    # a linear ramp of p over epochs; the family's own ∀ instead of the log-product for the labelled axioms
    "logic": {"schedule": None, "labelled_forall": "log_product"},
}
# read only together with a retired knob (clamp_threshold: with clamp_every > 0): any value is as good as its default
IGNORED: dict[str, tuple[str, ...]] = {"model": ("clamp_threshold",)}


def refuse_retired(cfg: Mapping[str, Any], group: str) -> None:
    """ValueError naming the first retired key of this config group that `cfg` sets to anything but its old value."""
    for key, off in RETIRED[group].items():
        if key in cfg and cfg[key] != off:
            raise ValueError(f"{group}.{key}={cfg[key]}: retired (off in every shipped model); this code has no such "
                             "option")
