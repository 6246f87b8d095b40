"""Kuhn's augmenting-path matching: maximum size and the reference's unmatched set."""

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from agenteval_nb.criteria import unmatched_left


def reference_kuhn(left, right, edges):
    """The reference algorithm, recursively (test oracle)."""
    adjacency = [[j for j in range(right) if (i, j) in edges] for i in range(left)]
    owner = [-1] * right

    def dfs(i, visited):
        if i in visited:
            return False
        visited.add(i)
        for j in adjacency[i]:
            if owner[j] == -1 or dfs(owner[j], visited):
                owner[j] = i
                return True
        return False

    if left == 0:
        return []
    for i in range(left):
        dfs(i, set())
    return [i for i in range(left) if i not in owner]


def maximum_matching_size(left, right, edges):
    best = 0
    for size in range(min(left, right), 0, -1):
        for lefts in itertools.combinations(range(left), size):
            for rights in itertools.permutations(range(right), size):
                if all((i, j) in edges for i, j in zip(lefts, rights, strict=True)):
                    return size
    return best


graphs = st.integers(0, 5).flatmap(
    lambda left: st.integers(0, 5).flatmap(
        lambda right: st.tuples(
            st.just(left),
            st.just(right),
            st.sets(st.tuples(st.integers(0, max(left - 1, 0)), st.integers(0, max(right - 1, 0)))),
        )
    )
)


@settings(deadline=None)
@given(graphs)
def test_same_unmatched_set_as_reference_and_maximum(graph):
    left, right, edges = graph
    edges = {(i, j) for i, j in edges if i < left and j < right}
    got = unmatched_left(left, right, lambda i, j: (i, j) in edges)
    assert got == reference_kuhn(left, right, edges)
    assert left - len(got) == maximum_matching_size(left, right, edges)


def test_unmatched_follow_processing_order():
    # left 0 and 1 both only fit right 0: the later one (1) stays unmatched
    edges = {(0, 0), (1, 0), (2, 1)}
    assert unmatched_left(3, 2, lambda i, j: (i, j) in edges) == [1]


def test_rerouting_through_current_owner():
    # left 0 takes right 0, then left 1 re-routes left 0 to right 1; left 2 is left out
    edges = {(0, 0), (0, 1), (1, 0), (2, 1)}
    assert unmatched_left(3, 2, lambda i, j: (i, j) in edges) == [2]


def test_edge_cases():
    assert unmatched_left(0, 3, lambda i, j: True) == []
    assert unmatched_left(2, 0, lambda i, j: True) == [0, 1]
    assert unmatched_left(2, 2, lambda i, j: False) == [0, 1]


def test_long_augmenting_path_does_not_recurse():
    n = 1500  # deeper than Python's default recursion limit

    # left i < n-1 fits rights i and i+1 and takes i; the last left fits only right 0, which
    # forces one augmenting path through every other left vertex.
    def edge(i, j):
        return j == 0 if i == n - 1 else j in (i, i + 1)

    assert unmatched_left(n, n, edge) == []
