"""The README's Python quick start: its install command is the one the test stage runs, and its
five-line example prints scores."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path


def test_readme_example_prints_scores(repo: Path) -> None:
    text = (repo / "README.md").read_text(encoding="utf-8")
    section = text.split("## Python\n", 1)[1]
    install = re.search(r"```sh\n(.*?)\n```", section, re.S).group(1)
    assert install.split("#")[0].strip() == "pip install ./crates/factpico-python"
    example = re.search(r"```python\n(.*?)\n```", section, re.S).group(1)
    assert len(example.splitlines()) <= 5, example
    p = subprocess.run([sys.executable, "-c", example], capture_output=True, text=True, cwd=repo)
    assert p.returncode == 0, p.stderr
    scores = eval(p.stdout)  # a dict literal of floats
    assert set(scores) >= {"rougeL", "delta_fkgl", "fkgl_summary"} and 0 < scores["rougeL"] <= 1
    # And in the package README too.
    pkg = (repo / "crates/factpico-python/README.md").read_text(encoding="utf-8")
    assert "pip install ./crates/factpico-python" in pkg
