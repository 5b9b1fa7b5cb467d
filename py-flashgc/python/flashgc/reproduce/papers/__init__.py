"""The five papers' reproductions, by the name `flashgc reproduce` takes."""

from .bf_gc import BfGc
from .midas import Midas
from .noc import Noc
from .splitgc import SplitGc
from .sup_gc import SupGc

PAPERS = {p.name: p for p in (SupGc(), BfGc(), SplitGc(), Noc(), Midas())}

__all__ = ["PAPERS"]
