"""The builders that spell each relation kind out, instead of the shorthand forms."""

from __future__ import annotations

from orkestrel.relation.types import RelationDescriptor


def _named(descriptor: RelationDescriptor, model: str | None) -> RelationDescriptor:
    if model is not None:
        descriptor["model"] = model
    return descriptor


def belongs_to(column: str, model: str | None = None) -> RelationDescriptor:
    """Describes a `belongs` relation: this table's `column` holds the related row's key, and a
    load attaches that row or `None`.
    """
    return _named({"relationship": "belongs", "column": column}, model)


def has_many(key: str, model: str | None = None) -> RelationDescriptor:
    """Describes a `many` relation: the related table's `key` column holds this row's key, and a
    load attaches the list of those rows.
    """
    return _named({"relationship": "many", "key": key}, model)


def has_one(key: str, model: str | None = None) -> RelationDescriptor:
    """Describes a `one` relation: like `has_many`, but a load attaches the first related row
    in key order, or `None`.
    """
    return _named({"relationship": "one", "key": key}, model)


def has_through(
    through: str, source: str, target: str, model: str | None = None
) -> RelationDescriptor:
    """Describes a `through` relation: junction table `through` pairs this row's key (`source`)
    with a related row's key (`target`), and a load attaches the related rows in junction order.
    """
    return _named(
        {"relationship": "through", "through": through, "source": source, "target": target}, model
    )


def has_morph(
    key: str, tag: str, label: str | int | float, model: str | None = None
) -> RelationDescriptor:
    """Describes a `morph` relation: the related rows whose `key` holds this row's key and whose
    `tag` column holds `label`, so one table can hang off several owners.
    """
    return _named({"relationship": "morph", "key": key, "tag": tag, "label": label}, model)
