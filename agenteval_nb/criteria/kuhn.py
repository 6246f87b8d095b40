"""Maximum bipartite matching by Kuhn's augmenting paths (not weighted Hungarian).

Left vertices (expected tools) are processed in index order; each gets a fresh DFS (visit marks
per attempt) that tries right vertices (actual tools) in ascending index order, taking a free
one or re-routing its current owner. This is the reference's order, so the set of unmatched
left vertices is the same. Edges are asked for lazily, in DFS order (callers memoise costly
edge tests); the DFS is iterative, so long tool lists cannot hit the recursion limit.
"""

from __future__ import annotations

from collections.abc import Callable

_FREE = -1


def max_matching(
    left_size: int, right_size: int, edge: Callable[[int, int], bool]
) -> list[int | None]:
    """The maximum matching: for each left vertex, its right vertex (``None``: unmatched).

    ``edge(i, j)`` says whether left ``i`` may be matched with right ``j``.
    """
    partner: list[int | None] = [None] * left_size
    if left_size == 0 or right_size == 0:
        return partner
    owner = [_FREE] * right_size
    visited = [0] * left_size
    for stamp, root in enumerate(range(left_size), start=1):
        _augment(root, stamp, right_size, owner, visited, edge)
    for right, left in enumerate(owner):
        if left != _FREE:
            partner[left] = right
    return partner


def unmatched_left(left_size: int, right_size: int, edge: Callable[[int, int], bool]) -> list[int]:
    """Left vertices left unmatched by the maximum matching, ascending (``[]`` = all matched)."""
    return [i for i, j in enumerate(max_matching(left_size, right_size, edge)) if j is None]


def _augment(
    root: int,
    stamp: int,
    right_size: int,
    owner: list[int],
    visited: list[int],
    has_edge: Callable[[int, int], bool],
) -> bool:
    """One DFS from ``root``; on success flip the path. Returns whether root got matched."""
    visited[root] = stamp
    # Each frame: [left vertex, next right index to try, right chosen to descend through].
    stack: list[list[int]] = [[root, 0, _FREE]]
    while stack:
        frame = stack[-1]
        left = frame[0]
        descended = False
        while frame[1] < right_size:
            right = frame[1]
            frame[1] += 1
            if not has_edge(left, right):
                continue
            current = owner[right]
            if current == _FREE:
                owner[right] = left
                for parent in reversed(stack[:-1]):
                    owner[parent[2]] = parent[0]
                return True
            if visited[current] != stamp:
                visited[current] = stamp
                frame[2] = right
                stack.append([current, 0, _FREE])
                descended = True
                break
        if not descended:
            stack.pop()
    return False
