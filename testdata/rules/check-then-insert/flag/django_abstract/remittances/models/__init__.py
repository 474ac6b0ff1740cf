from .base import RemoteObject, Stamped
from .transfers import Transfer

__all__ = ["RemoteObject", "Stamped", "Transfer"]
