"""The two errors the core raises. Both are ValueErrors whose message says what to change."""


class ConfigError(ValueError):
    """A size or setting is not allowed (names the field, the value given and what is allowed)."""


class InputError(ValueError):
    """X (or a token row) cannot be computed with: wrong shape, not numeric, empty, NaN/inf, overflow."""
