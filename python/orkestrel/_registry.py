"""`Registry`: what the conversation and workspace managers share: items by id in insertion order,
one active selection, and durability through a snapshot store."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Generic, Protocol, TypeVar

SnapshotT = TypeVar("SnapshotT")


class Snapshotted(Protocol):
    """An item with an id that can write itself out as a snapshot."""

    @property
    def id(self) -> str: ...
    def snapshot(self) -> Any: ...


class SnapshotStore(Protocol[SnapshotT]):
    """Where snapshots are kept by id; `get` gives `None` on a miss."""

    async def get(self, id: str) -> SnapshotT | None: ...
    async def set(self, snapshot: SnapshotT) -> None: ...


ItemT = TypeVar("ItemT", bound=Snapshotted)


class Registry(Generic[ItemT, SnapshotT]):
    """Registers items in insertion order with one active selection; with a store, `open`
    hydrates an item from its snapshot and `save` writes one back. Nothing is saved on its own.

    A subclass says how an item is built from a stored snapshot (`_hydrate`).
    """

    __slots__ = ("_active", "_items", "_store")

    def __init__(self, store: SnapshotStore[SnapshotT] | None) -> None:
        self._items: dict[str, ItemT] = {}
        self._active: str | None = None
        self._store = store

    @property
    def count(self) -> int:
        """How many items are registered."""
        return len(self._items)

    @property
    def active(self) -> ItemT | None:
        """The selected item, resolved through the registry on every read."""
        return None if self._active is None else self._items.get(self._active)

    def _register(self, item: ItemT) -> ItemT:
        """Registers an item (replacing one with the same id), activating it when nothing is
        active yet."""
        self._items[item.id] = item
        if self._active is None:
            self._active = item.id
        return item

    def _hydrate(self, id: str, snapshot: SnapshotT) -> ItemT:
        """Builds and registers the item a stored snapshot describes."""
        raise NotImplementedError

    def switch(self, id: str) -> ItemT | None:
        """Re-points the active selection to a registered id; an unknown id changes nothing and
        gives `None`.
        """
        item = self._items.get(id)
        if item is not None:
            self._active = id
        return item

    async def open(self, id: str) -> ItemT | None:
        """Activates a registered item, or hydrates one from the store's snapshot, registers and
        activates it; a miss gives `None`.
        """
        existing = self._items.get(id)
        if existing is not None:
            self._active = id
            return existing
        if self._store is None:
            return None
        snapshot = await self._store.get(id)
        if snapshot is None:
            return None
        item = self._hydrate(id, snapshot)
        self._active = item.id
        return item

    async def save(self, id: str) -> bool:
        """Writes a registered item's snapshot to the store; `False` without a store or for an
        unknown id.
        """
        item = self._items.get(id)
        if self._store is None or item is None:
            return False
        await self._store.set(item.snapshot())
        return True

    def remove(self, id: str | Sequence[str]) -> bool:
        """Drops one id or a batch of ids, clearing the selection when it goes; stored snapshots
        stay. Reports whether anything was removed.
        """
        ids = [id] if isinstance(id, str) else list(id)
        removed = [self._items.pop(one, None) is not None for one in ids]
        if self._active is not None and self._active not in self._items:
            self._active = None
        return any(removed)

    def clear(self) -> None:
        """Empties the registry and the selection."""
        self._items.clear()
        self._active = None

    def __repr__(self) -> str:
        return f"{type(self).__name__}(count={len(self._items)}, active={self._active!r})"
