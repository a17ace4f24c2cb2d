"""Process set-up shared by the Hydra entry points: seeds, threads, device, and the run's output folder."""

from __future__ import annotations

import random
from pathlib import Path

import ltn
import numpy as np
import torch
from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig, open_dict

from ltn_sudoku.logic.device import resolve_device


def configure_torch(cfg: DictConfig) -> None:
    """Seed every generator, set the CPU thread count, pick the device (stored as cfg.device_resolved) and make
    LTNtorch put its variables there too."""
    seed = int(cfg.seed)
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    if int(cfg.threads) > 0:
        torch.set_num_threads(int(cfg.threads))
    device = resolve_device(str(cfg.device))
    ltn.device = device
    with open_dict(cfg):
        cfg.device_resolved = str(device)


def run_directory(cfg: DictConfig) -> Path:
    """cfg.run_dir when set, else Hydra's output folder of this job; created if needed."""
    if cfg.get("run_dir"):
        path = Path(str(cfg.run_dir))
    elif HydraConfig.initialized():
        path = Path(HydraConfig.get().runtime.output_dir)
    else:
        raise ValueError("no run folder: set run_dir=PATH when calling outside Hydra")
    path.mkdir(parents=True, exist_ok=True)
    return path
