"""The communication report and the sharding pictures."""

import struct
import zlib

import numpy as np

import mlir_mesh
from mlir_mesh.analysis import comm_report
from mlir_mesh.analysis.layout import device_block, draw_layout, layout_image, layout_png
from mlir_mesh.passes.propagation import propagate
from mlir_mesh.passes.spmdization import spmdize
from mlir_mesh.sharding import Mesh, Sharding

MESH = Mesh("mesh0", (2, 3))


def test_picture_with_values_matches_spec_004_layout():
    # spec 004's third picture (its rows 1 and 2), dimension 1 split over both axes, axis 0 outermost
    text = draw_layout((2, 6), Sharding("mesh0", ((), (0, 1))), MESH)
    assert text.splitlines()[2:] == [
        "mesh axis 1",
        "--------------->",
        "+----+----+----+ mesh axis 0 |",
        "| 11 | 12 | 13 | |",
        "| 21 | 22 | 23 | |",
        "+----+----+----+ |",
        "| 14 | 15 | 16 | |",
        "| 24 | 25 | 26 | |",
        "+----+----+----+ ↓",
    ]


def test_picture_with_ranges_partial_and_halos():
    text = draw_layout((16, 8), Sharding("mesh0", ((0,),), (1,), "max"), MESH)
    assert "| [0:8, 0:8]  | [0:8, 0:8]  | [0:8, 0:8]  | |" in text
    assert "| [8:16, 0:8] |" in text and text.count("partial max") == 6
    halo = Sharding("mesh0", ((1,),), halo_sizes=(1, 2))
    assert device_block(halo, (9, 4), MESH, (0, 1)) == [(2, 8), (0, 4)]
    assert device_block(halo, (9, 4), MESH, (0, 0)) == [(0, 5), (0, 4)]


def test_png_colours_each_device_block(tmp_path):
    path = tmp_path / "layout.png"
    layout_png(str(path), (8, 6), Sharding("mesh0", ((0,), (1,))), MESH)
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    image = layout_image((8, 6), Sharding("mesh0", ((0,), (1,))), MESH, cell=96)
    assert (height, width) == image.shape[:2]
    # decode the IDAT chunk back and compare with the array
    idat = data.index(b"IDAT")
    length = struct.unpack(">I", data[idat - 4 : idat])[0]
    raw = zlib.decompress(data[idat + 4 : idat + 4 + length])
    rows = np.frombuffer(raw, dtype=np.uint8).reshape(height, 1 + width * 3)[:, 1:].reshape(height, width, 3)
    assert np.array_equal(rows, image)
    # device (1, 2) owns rows 4:8 and columns 4:6: the bottom right of its cell is coloured
    blue = np.array([52, 120, 200])
    cell, pad = 96, 6
    y0, x0 = pad + 1 * (cell + pad), pad + 2 * (cell + pad)
    assert (image[y0 + cell - 1, x0 + cell - 1] == blue).all()
    assert not (image[y0, x0] == blue).all()


def test_comm_report_of_the_mlp_matches_the_ring_formula(ctx):
    module = mlir_mesh.parse(open(__file__.rsplit("/test/", 1)[0] + "/examples/mlp_1d.mlir").read())
    propagate(module.operation)
    spmdize(module.operation)
    report = comm_report(module)
    assert [r.op for r in report.rows] == ["all_gather", "reduce_scatter"]
    n, x_local, y_full = 2, 2 * 4 * 4 * 4, 2 * 4 * 8 * 4
    assert report.rows[0].sent == (n - 1) * x_local
    assert report.rows[1].received == (n - 1) / n * y_full
    assert report.total_sent == (n - 1) * x_local + (n - 1) / n * y_full
    assert '"count": 2' in report.to_json()
