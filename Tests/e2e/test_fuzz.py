"""The fuzz targets of fuzzing.py, a fixed number of seeded cases each (about a minute
in all): no crash, no hang, exit 0 or 1, every error naming its file. `make fuzz` runs
the same targets for longer (FUZZ_SECONDS)."""
import os

import pytest

import fuzzing
from conftest import REPO

RUNS = int(os.environ.get("FUZZ_RUNS", "6"))
SEED = int(os.environ.get("FUZZ_SEED", "20261123"))

# Findings in other helpers' domains, reported to the lead (see the branch report);
# remove a name when its fix lands.
KNOWN: dict[str, str] = {}


@pytest.mark.parametrize("target", fuzzing.TARGETS, ids=[t.name for t in fuzzing.TARGETS])
def test_fuzz_target(target):
    if target.name in KNOWN:
        pytest.xfail(KNOWN[target.name])
    findings = fuzzing.campaign([target], SEED, runs=RUNS, save=REPO / "artifacts" / "fuzz")
    assert not findings, "\n".join(map(str, findings))
