"""When a cache is worth its keys."""


class HitRate:
    """Counts a cache's hits; turns the cache off when its keys cost more than its hits save.

    When no two ops are alike, making keys and templates is pure overhead;
    after 256 misses with under one hit in four, the caller stops using it.
    """

    __slots__ = ("hits", "misses")

    def __init__(self):
        self.hits = self.misses = 0

    @property
    def worth_it(self) -> bool:
        return self.misses < 256 or 4 * self.hits >= self.misses
