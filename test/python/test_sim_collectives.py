"""The collectives of the simulator reproduce the pictures of spec 001 exactly."""

import numpy as np
import pytest

from mlir_mesh.sharding import Mesh
from mlir_mesh.sim import collectives as c


def arr(rows):
    return np.array(rows, dtype=np.int64)


# The input of the all_gather, gather and reduce_scatter pictures on a 2x2 mesh.
QUAD = {
    (0, 0): arr([[1, 2], [3, 4]]),
    (0, 1): arr([[5, 6], [7, 8]]),
    (1, 0): arr([[9, 10], [11, 12]]),
    (1, 1): arr([[13, 14], [15, 16]]),
}
M22 = Mesh("mesh0", (2, 2))


def check(state, expected):
    assert set(state) == set(expected)
    for d, want in expected.items():
        if want is None:
            assert state[d] is None, d
        else:
            np.testing.assert_array_equal(state[d], want, err_msg=str(d))


def test_all_gather_picture():
    top = arr([[1, 2, 5, 6], [3, 4, 7, 8]])
    bottom = arr([[9, 10, 13, 14], [11, 12, 15, 16]])
    check(c.all_gather(QUAD, M22, [1], 1), {(0, 0): top, (0, 1): top, (1, 0): bottom, (1, 1): bottom})


def test_all_slice_picture_inverts_all_gather():
    top = arr([[1, 2, 5, 6], [3, 4, 7, 8]])
    bottom = arr([[9, 10, 13, 14], [11, 12, 15, 16]])
    state = {(0, 0): top, (0, 1): top, (1, 0): bottom, (1, 1): bottom}
    check(c.all_slice(state, M22, [1], 1), QUAD)


def test_all_to_all_picture():
    mesh = Mesh("mesh0", (3,))
    state = {
        (0,): arr([[11, 12], [13, 14], [15, 16]]),
        (1,): arr([[21, 22], [23, 24], [25, 26]]),
        (2,): arr([[31, 32], [33, 34], [35, 36]]),
    }
    check(
        c.all_to_all(state, mesh, [0], 0, 0),
        {
            (0,): arr([[11, 12], [21, 22], [31, 32]]),
            (1,): arr([[13, 14], [23, 24], [33, 34]]),
            (2,): arr([[15, 16], [25, 26], [35, 36]]),
        },
    )


def test_broadcast_picture():
    # root = [0] along axis 0: the top row of devices holds the data
    state = {(0, 0): arr([1, 2]), (0, 1): arr([3, 4]), (1, 0): arr([0, 0]), (1, 1): arr([0, 0])}
    check(
        c.broadcast(state, M22, [0], [0]),
        {(0, 0): arr([1, 2]), (0, 1): arr([3, 4]), (1, 0): arr([1, 2]), (1, 1): arr([3, 4])},
    )


def test_gather_picture():
    # mesh_axes = [1], root = [1]: devices (0, 1) and (1, 1) receive; the rest is undefined
    check(
        c.gather(QUAD, M22, [1], 1, [1]),
        {
            (0, 0): None,
            (0, 1): arr([[1, 2, 5, 6], [3, 4, 7, 8]]),
            (1, 0): None,
            (1, 1): arr([[9, 10, 13, 14], [11, 12, 15, 16]]),
        },
    )


def test_reduce_scatter_picture():
    # The picture's numbers are a sum over mesh axis 1 scattered on tensor axis 0
    # (its text says <max> and other shapes; the numbers are the contract).
    check(
        c.reduce_scatter(QUAD, M22, [1], 0, "sum"),
        {(0, 0): arr([[6, 8]]), (0, 1): arr([[10, 12]]), (1, 0): arr([[22, 24]]), (1, 1): arr([[26, 28]])},
    )


def test_scatter_picture():
    # mesh_axes = [0], root = [1]: the bottom row scatters its rows upwards
    empty = arr([[0, 0], [0, 0]])
    state = {(0, 0): empty, (0, 1): empty, (1, 0): arr([[1, 2], [3, 4]]), (1, 1): arr([[5, 6], [7, 8]])}
    check(
        c.scatter(state, M22, [0], 0, [1]),
        {(0, 0): arr([[1, 2]]), (0, 1): arr([[5, 6]]), (1, 0): arr([[3, 4]]), (1, 1): arr([[7, 8]])},
    )


def test_shift_picture_and_without_rotate():
    mesh = Mesh("mesh0", (2, 4))
    state = {(i, j): np.array([4 * i + j + 1]) for i in range(2) for j in range(4)}
    rotated = c.shift(state, mesh, [1], 1, 2, rotate=True)
    assert [int(rotated[(0, j)][0]) for j in range(4)] == [3, 4, 1, 2]
    assert [int(rotated[(1, j)][0]) for j in range(4)] == [7, 8, 5, 6]
    shifted = c.shift(state, mesh, [1], 1, 1)
    assert shifted[(0, 0)] is None and [int(shifted[(0, j)][0]) for j in range(1, 4)] == [1, 2, 3]


@pytest.mark.parametrize(
    "kind, expected",
    [
        ("sum", [28, 32]),
        ("max", [13, 14]),
        ("min", [1, 2]),
        ("product", [1 * 5 * 9 * 13, 2 * 6 * 10 * 14]),
        ("bitwise_and", [1 & 5 & 9 & 13, 2 & 6 & 10 & 14]),
        ("bitwise_or", [1 | 5 | 9 | 13, 2 | 6 | 10 | 14]),
        ("bitwise_xor", [1 ^ 5 ^ 9 ^ 13, 2 ^ 6 ^ 10 ^ 14]),
    ],
)
def test_all_reduce_every_kind(kind, expected):
    state = {d: v[0] for d, v in QUAD.items()}  # first rows: [1 2], [5 6], [9 10], [13 14]
    out = c.all_reduce(state, M22, [0, 1], kind)
    for d in QUAD:
        np.testing.assert_array_equal(out[d], expected)


def test_average_and_groups_follow_axis_order():
    state = {d: np.array([float(M22.linear_index(d))]) for d in M22.devices()}
    out = c.all_reduce(state, M22, [0], "average")
    assert float(out[(0, 1)][0]) == 2.0  # devices (0, 1) and (1, 1): 1 and 3
    # axes [1, 0]: axis 1 is the outer one, so (1, 0) comes before (0, 1)
    order = next(iter(c.groups(M22, [1, 0])))
    assert order == [(0, 0), (1, 0), (0, 1), (1, 1)]


def test_send_recv_and_indices():
    out = c.send_recv(QUAD, M22, [0], destination=[1], source=[0])
    check(out, {(0, 0): None, (0, 1): None, (1, 0): QUAD[(0, 0)], (1, 1): QUAD[(0, 1)]})
    assert c.process_multi_index(M22, [1, 0])[(0, 1)] == (1, 0)
    assert c.process_linear_index(Mesh("m", (10, 20, 30)))[(1, 2, 3)] == 3 + 30 * 2 + 20 * 30 * 1
    assert c.mesh_shape(M22) == (2, 2)
