"""Kuhn's augmenting-path matching: maximum size and the reference's unmatched set."""

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agenteval_nb.criteria import unmatched_left
from agenteval_nb.criteria.kuhn import max_matching


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


def adjacency_matrices(max_side):
    """Graphs as ``(left, right, edges)`` from a random boolean matrix (dense and sparse alike)."""
    return st.integers(0, max_side).flatmap(
        lambda left: st.integers(0, max_side).flatmap(
            lambda right: st.tuples(
                st.just(left),
                st.just(right),
                st.lists(
                    st.lists(st.booleans(), min_size=right, max_size=right),
                    min_size=left,
                    max_size=left,
                ),
            )
        )
    )


@settings(deadline=None, max_examples=200)
@given(adjacency_matrices(6))
def test_same_unmatched_set_as_reference_and_maximum(graph):
    left, right, matrix = graph
    edges = {(i, j) for i, row in enumerate(matrix) for j, edge in enumerate(row) if edge}
    got = unmatched_left(left, right, lambda i, j: (i, j) in edges)
    assert got == reference_kuhn(left, right, edges)
    assert left - len(got) == maximum_matching_size(left, right, edges)


def test_a_matched_left_moves_back_to_the_first_right():
    # left 0 takes right 0; left 1 moves it to right 1 and takes right 0; left 2 (only right 1)
    # must move left 0 back to right 0, whose owner left 1 moves on to right 2: all matched.
    edges = {(0, 0), (0, 1), (1, 0), (1, 2), (2, 1)}
    assert unmatched_left(3, 3, lambda i, j: (i, j) in edges) == []


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


# -- every bipartite graph up to 4 × 4 -----------------------------------------------------------

MAX_SIDE = 4


def injections(left, right):
    """Every partial injection left → right as an edge bitmask (bit ``i * right + j``), paired
    with its size, largest first — the brute-force oracle's search space."""
    out = []
    for size in range(min(left, right), -1, -1):
        for lefts in itertools.combinations(range(left), size):
            for rights in itertools.permutations(range(right), size):
                mask = sum(1 << (i * right + j) for i, j in zip(lefts, rights, strict=True))
                out.append((size, mask))
    return out


def brute_force_maximum(graph_mask, candidates):
    """Size of the largest injection whose every pair is an edge of the graph."""
    return next(size for size, mask in candidates if graph_mask & mask == mask)


@pytest.mark.parametrize("left", range(MAX_SIDE + 1))
@pytest.mark.parametrize("right", range(MAX_SIDE + 1))
def test_every_small_graph_matches_the_brute_force_maximum(left, right):
    """All 2^(left·right) adjacency matrices: the matcher's matching is maximum (so it reports
    "all matched" exactly when some injection matches every expected tool) and leaves out the
    same expected tools as the reference's recursive search."""
    candidates = injections(left, right)
    for graph_mask in range(1 << (left * right)):
        edges = {
            (i, j) for i in range(left) for j in range(right) if graph_mask >> (i * right + j) & 1
        }
        got = unmatched_left(left, right, lambda i, j, e=edges: (i, j) in e)
        best = brute_force_maximum(graph_mask, candidates)
        assert left - len(got) == best, (left, right, sorted(edges), got)
        assert (got == []) == (best == left), (left, right, sorted(edges), got)
        assert got == reference_kuhn(left, right, edges), (left, right, sorted(edges), got)


@pytest.mark.parametrize("left", range(MAX_SIDE + 1))
@pytest.mark.parametrize("right", range(1, MAX_SIDE))
def test_the_matching_uses_edges_once_each_and_leaves_out_the_unmatched(left, right):
    """``max_matching`` (what the tool diff shows) pairs only along edges, each right once, and
    its unmatched lefts are ``unmatched_left`` (what the metric reports)."""
    for graph_mask in range(1 << (left * right)):
        edges = {
            (i, j) for i in range(left) for j in range(right) if graph_mask >> (i * right + j) & 1
        }
        matching = max_matching(left, right, lambda i, j, e=edges: (i, j) in e)
        pairs = [(i, j) for i, j in enumerate(matching) if j is not None]
        assert all(pair in edges for pair in pairs)
        assert len({j for _, j in pairs}) == len(pairs)
        assert [i for i, j in enumerate(matching) if j is None] == reference_kuhn(
            left, right, edges
        )
