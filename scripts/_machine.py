"""What a benchmark names beside its figures: the machine they were measured on (absolute times hold on it alone)."""

from __future__ import annotations

import os
import platform
import resource
from pathlib import Path


def _cpuinfo(field: str) -> str | None:
    """The first value of a /proc/cpuinfo field (Linux), or None where there is none."""
    try:
        lines = Path("/proc/cpuinfo").read_text().splitlines()
    except OSError:
        return None
    return next((line.split(":", 1)[1].strip() for line in lines if line.startswith(field)), None)


def cpu_name() -> str:
    """The CPU's model name (Linux /proc/cpuinfo), else what platform says."""
    return _cpuinfo("model name") or platform.processor() or platform.machine()


def machine_line() -> str:
    """The line a benchmark prints before its figures: the machine they were measured on."""
    return (f"CPU: {cpu_name()} ({os.cpu_count()} logical CPUs); absolute times hold on this machine, "
            "ratios are portable")


def bf16_units() -> str:
    """The CPU's bfloat16 instructions (AMX tiles, AVX-512 BF16): whether bf16 matrix products can run faster than
    float32 ones here (train.amp's figures on the CPU hold only where they are present)."""
    flags = (_cpuinfo("flags") or "").split()
    found = [f for f in ("amx_bf16", "avx512_bf16") if f in flags]
    return ", ".join(found) if found else "none"


def peak_rss_mb() -> float:
    """This process's peak resident set size in MB (Linux reports KB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
