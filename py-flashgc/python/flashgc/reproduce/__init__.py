"""`flashgc reproduce PAPER`: each paper's evaluation in one command, every quantitative claim
of the paper beside flashgc's value with a verdict, sensitivity sweeps of the settings the
paper leaves open, and the figures (docs/reproduce.md).

    import flashgc.reproduce as rp
    res = rp.reproduce("sup-gc", scale="quick", out="out")
    res["sup-gc"]["claims"][0]["verdict"]
"""

from .claims import CANNOT, CONTRADICTS, DIRECTION, HOLDS, Claim, Verdict, evaluate, load_claims
from .core import SCALES, reproduce
from .papers import PAPERS

__all__ = [
    "reproduce",
    "PAPERS",
    "SCALES",
    "load_claims",
    "evaluate",
    "Claim",
    "Verdict",
    "HOLDS",
    "DIRECTION",
    "CONTRADICTS",
    "CANNOT",
]
