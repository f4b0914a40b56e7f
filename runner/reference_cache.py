"""Reference results kept by the supervisor, keyed by what determines them."""

from __future__ import annotations

import collections
import hashlib
import json
import threading
from typing import Any

_MAX_ENTRIES = 256
_MAX_BYTES = 256 << 20


class ReferenceCache:
    """A small LRU of reference payloads and timings; they never leave the trusted process."""

    def __init__(self) -> None:
        self._items: collections.OrderedDict[str, tuple[object, int]] = collections.OrderedDict()
        self._lock = threading.Lock()

    @staticmethod
    def key(source: str, entry_point: str, cases: list[dict[str, Any]], device: str) -> str:
        material = json.dumps([source, entry_point, cases, device], sort_keys=True, default=str)
        return hashlib.sha256(material.encode()).hexdigest()

    def get(self, key: str) -> object | None:
        with self._lock:
            found = self._items.get(key)
            if found is None:
                return None
            self._items.move_to_end(key)
            return found[0]

    def put(self, key: str, value: object, size: int) -> None:
        """Keep `value` (about `size` bytes), dropping the least recently used past the caps."""
        with self._lock:
            self._items[key] = (value, size)
            self._items.move_to_end(key)
            while len(self._items) > _MAX_ENTRIES or self._size() > _MAX_BYTES:
                self._items.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()

    def _size(self) -> int:
        return sum(size for _value, size in self._items.values())


reference_cache = ReferenceCache()
