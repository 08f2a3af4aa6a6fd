"""The paper's studies (docs/mathematics.md, section 'The paper's studies') as functions returning
data, a figure and claim checks.

``run_study(name, quick=...)`` runs a registered study; each study module can also be used
directly (``holdout_study(N=..., test_sizes=...)``). ``run_sweep`` evaluates grids of
configurations on Dask.
"""

from momentbound.studies.distributed import run_sweep
from momentbound.studies.registry import STUDIES, StudySpec, run_study, study_names
from momentbound.studies.result import ClaimCheck, CurveSource, StudyFiles, StudyResult, Verdict

__all__ = [
    "ClaimCheck",
    "CurveSource",
    "STUDIES",
    "StudyFiles",
    "StudyResult",
    "StudySpec",
    "Verdict",
    "run_study",
    "run_sweep",
    "study_names",
]
