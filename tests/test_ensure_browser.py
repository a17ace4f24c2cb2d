"""`make test` installs the browser test's Chromium where it is missing (scripts/ensure_browser.sh): nothing when one
is there, the package manager's chromium where apt-get may run, else Playwright's own. Run here against stand-in
commands on a PATH that has no browser, so nothing is installed."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "ensure_browser.sh"


def _stand_ins(tmp_path: Path, apt_status: int) -> Path:
    """A bin folder: `id` (real), an `apt-get` and a `python` that log their arguments (python: no Playwright
    browser found; `-m playwright install` succeeds)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(parents=True)
    os.symlink(shutil.which("id") or "/usr/bin/id", bin_dir / "id")
    log = tmp_path / "calls.log"
    (bin_dir / "apt-get").write_text(f"#!/bin/sh\necho apt-get \"$@\" >> {log}\nexit {apt_status}\n")
    (bin_dir / "python").write_text(f"#!/bin/sh\n[ \"$1\" = -m ] || exit 1\necho python \"$@\" >> {log}\n")
    for tool in ("apt-get", "python"):
        (bin_dir / tool).chmod(0o755)
    return bin_dir


def _run(bin_dir: Path) -> subprocess.CompletedProcess[str]:
    bash = shutil.which("bash") or "/bin/bash"
    return subprocess.run([bash, str(SCRIPT), str(bin_dir / "python")], capture_output=True, text=True,
                          env={"PATH": str(bin_dir), "HOME": str(bin_dir)}, timeout=60)


def test_a_browser_on_path_installs_nothing(tmp_path: Path) -> None:
    bin_dir = _stand_ins(tmp_path, 0)
    (bin_dir / "chromium").write_text("#!/bin/sh\n")
    (bin_dir / "chromium").chmod(0o755)
    done = _run(bin_dir)
    assert done.returncode == 0 and not (tmp_path / "calls.log").exists()


def test_apt_get_first_then_playwright(tmp_path: Path) -> None:
    if os.geteuid() != 0:  # apt-get runs as root or through password-less sudo, absent from the stand-in PATH
        bin_dir = _stand_ins(tmp_path, 0)
        assert _run(bin_dir).returncode == 0
        assert "python -m playwright install chromium" in (tmp_path / "calls.log").read_text()
        return
    bin_dir = _stand_ins(tmp_path, 0)
    done = _run(bin_dir)
    calls = (tmp_path / "calls.log").read_text()
    assert done.returncode == 0 and "install -y -qq --no-install-recommends chromium" in calls
    assert "playwright" not in calls
    failing = _stand_ins(tmp_path / "second", 100)
    done = _run(failing)
    calls = (tmp_path / "second" / "calls.log").read_text()
    assert done.returncode == 0 and "apt-get update" in calls and "python -m playwright install chromium" in calls
    assert "trying Playwright's own browser" in done.stderr
