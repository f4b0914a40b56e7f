"""Reference outputs kept by the supervisor, keyed by what determines them."""

from __future__ import annotations

import collections
import hashlib
import json
import threading
from typing import Any

_MAX_ENTRIES = 128
_MAX_BYTES = 256 << 20


class ReferenceCache:
    """A small LRU of reference payloads; they never leave the trusted process."""

    def __init__(self) -> None:
        self._items: collections.OrderedDict[str, bytes] = collections.OrderedDict()
        self._lock = threading.Lock()

    @staticmethod
    def key(source: str, entry_point: str, cases: list[dict[str, Any]], device: str) -> str:
        material = json.dumps([source, entry_point, cases, device], sort_keys=True, default=str)
        return hashlib.sha256(material.encode()).hexdigest()

    def get(self, key: str) -> bytes | None:
        with self._lock:
            payload = self._items.get(key)
            if payload is not None:
                self._items.move_to_end(key)
            return payload

    def put(self, key: str, payload: bytes) -> None:
        with self._lock:
            self._items[key] = payload
            self._items.move_to_end(key)
            while len(self._items) > _MAX_ENTRIES or self._size() > _MAX_BYTES:
                self._items.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()

    def _size(self) -> int:
        return sum(len(payload) for payload in self._items.values())


reference_cache = ReferenceCache()
