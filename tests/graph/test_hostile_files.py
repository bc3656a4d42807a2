"""Hostile files on the graph layer: each class of input that hung, exhausted memory or gave a
traceback has its smallest example here (FIFOs, headers that declare gigabytes, operator
outputs over the cap, interrupted saves, orphaned temporaries, content quoted in errors)."""
import io
import json
import os
import subprocess
import sys
import threading
import tracemalloc
import zipfile

import numpy as np
import pytest

from nodeeditor.graph import Engine, Graph, GraphFileError, NodeStatus, atomic, load_graph, loads_graph, save_graph
from nodeeditor.graph.fileformat import sidecar_path
from nodeeditor.graph.sources import SourceError, file_type, load_file

GiB = 1 << 30


def _in_thread(fn, timeout=10.0):
    """``fn()`` on a daemon thread: (finished, result or exception). A read that blocks forever
    (a FIFO with no writer) leaves the thread behind instead of the test."""
    box = {}

    def work():
        try:
            box["value"] = fn()
        except BaseException as exc:  # noqa: BLE001 - handed back to the test
            box["value"] = exc

    thread = threading.Thread(target=work, daemon=True)
    thread.start()
    thread.join(timeout)
    return not thread.is_alive(), box.get("value")


def _peak_mib(fn):
    """Peak memory traced (numpy reports its buffers to tracemalloc) while ``fn()`` runs, in MiB."""
    tracemalloc.start()
    try:
        fn()
    except Exception:  # noqa: BLE001 - the refusal is expected; only the memory is measured here
        pass
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return peak / (1 << 20)


# ------------------------------------------------------------------------- FIFOs
@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
@pytest.mark.parametrize("link", [False, True])
@pytest.mark.parametrize("suffix", [".npy", ".npz", ".csv"])
def test_a_file_source_on_a_fifo_is_an_error_not_a_hang(tmp_path, suffix, link):
    fifo = tmp_path / f"pipe{suffix}"
    os.mkfifo(fifo)
    path = fifo
    if link:
        path = tmp_path / f"link{suffix}"
        os.symlink(fifo, path)
    for read in (file_type, load_file):
        finished, outcome = _in_thread(lambda r=read: r(path))
        assert finished, f"{read.__name__} blocked on a FIFO"
        assert isinstance(outcome, SourceError) and "FIFO" in str(outcome) and str(path) in str(outcome)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_check_and_run_of_a_graph_reading_a_fifo_end_with_an_error_on_the_node(tmp_path):
    os.mkfifo(tmp_path / "pipe.npy")
    g = Graph()
    g.add_file_source("pipe.npy", node_id="f")
    g.add_output("out", node_id="o")
    g.connect("f", "output", "o", "value")
    path = save_graph(g, tmp_path / "g.ifg.json")
    code = "import sys; from nodeeditor.cli import main; sys.exit(main())"
    for verb in ("check", "run"):
        proc = subprocess.run([sys.executable, "-c", code, verb, str(path)], capture_output=True, text=True,
                              timeout=60)
        assert proc.returncode == 1 and "FIFO" in proc.stdout and "Traceback" not in proc.stderr, proc.stderr


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
@pytest.mark.parametrize("which", ["graph", "sidecar"])
def test_a_graph_file_or_sidecar_that_is_a_fifo_is_refused(tmp_path, which):
    g = Graph()
    g.add_literal(np.zeros(5000, np.float32), node_id="big")       # large: it has a sidecar
    path = save_graph(g, tmp_path / "g.ifg.json")
    target = path if which == "graph" else sidecar_path(path)
    target.unlink()
    os.mkfifo(target)
    finished, outcome = _in_thread(lambda: load_graph(path))
    assert finished and isinstance(outcome, GraphFileError) and "FIFO" in str(outcome)


# ------------------------------------------------------------------------- sizes from headers
def _npy_header(shape, descr="<f4"):
    buffer = io.BytesIO()
    np.lib.format.write_array_header_1_0(buffer, {"descr": descr, "fortran_order": False, "shape": shape})
    return buffer.getvalue()


def test_a_sidecar_declaring_gigabytes_is_refused_from_its_header(tmp_path):
    n = 6 * GiB // 4
    side = tmp_path / "g.ifg.npz"
    with zipfile.ZipFile(side, "w") as archive:
        archive.writestr("big.value.npy", _npy_header((n,)) + b"\0" * 64)
    doc = {"format": "indexflow-graph", "version": 1,
           "nodes": [{"id": "big", "kind": "literal", "name": "big", "position": [0, 0],
                      "value": {"dtype": "float32", "shape": [n], "sidecar": side.name, "key": "big.value"}}],
           "edges": []}
    path = tmp_path / "g.ifg.json"
    path.write_text(json.dumps(doc))
    errors = []
    peak = _peak_mib(lambda: errors.append(pytest.raises(GraphFileError, load_graph, path)))
    message = str(errors[0].value)
    assert "6.0 GiB" in message and "limited to 2.0 GiB" in message and "INDEXFLOW_MAX_SOURCE_MB" in message
    assert str(side) in message and peak < 64


@pytest.mark.parametrize("suffix", [".npy", ".npz"])
def test_a_file_source_declaring_gigabytes_is_refused_before_reading(tmp_path, monkeypatch, suffix):
    monkeypatch.setenv("INDEXFLOW_MAX_SOURCE_MB", "64")
    path = tmp_path / f"big{suffix}"
    header = _npy_header((GiB // 4,))  # 1 GiB of float32
    if suffix == ".npy":
        path.write_bytes(header + b"\0" * 64)
    else:
        with zipfile.ZipFile(path, "w") as archive:
            archive.writestr("a.npy", header + b"\0" * 64)
    for read in (file_type, load_file):
        with pytest.raises(SourceError, match=r"1\.0 GiB.*limited to 64\.0 MiB"):
            read(path)
    assert _peak_mib(lambda: load_file(path)) < 16


def test_a_csv_larger_than_the_cap_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("INDEXFLOW_MAX_SOURCE_MB", "0.001")   # about 1 KiB
    path = tmp_path / "big.csv"
    path.write_text("1,2,3\n" * 1000)
    with pytest.raises(SourceError, match="too large.*limited to"):
        load_file(path)


def test_an_npy_holding_python_objects_is_refused_from_its_header(tmp_path):
    path = tmp_path / "objects.npy"
    path.write_bytes(_npy_header((3,), "|O") + b"\0" * 24)
    with pytest.raises(SourceError, match="Python objects.*never loads"):
        load_file(path)


# ------------------------------------------------------------------------- content never quoted
def test_errors_about_a_files_content_never_quote_it(tmp_path):
    secret = "hunter2-password"
    csv = tmp_path / "secret.csv"
    csv.write_text(f"1,2\n3,{secret}\n")
    npy = tmp_path / "secret.npy"
    header = b"{'descr': '" + secret.encode() + b"', 'shape': (1,)}"
    npy.write_bytes(b"\x93NUMPY\x01\x00\x40\x00" + header + b" " * 20 + b"\n")
    for path in (csv, npy):
        for read in (load_file, file_type):
            with pytest.raises(SourceError) as info:
                read(path)
            assert secret not in str(info.value) and str(path) in str(info.value)
    with pytest.raises(SourceError, match="row 2, column 2"):
        load_file(csv)


# ------------------------------------------------------------------------- operator outputs
def _gather_graph(rows, row_len, picks):
    g = Graph()
    g.add_generator("zeros", {"shape": [rows, row_len]}, node_id="d")
    g.add_literal(np.zeros(picks, np.int64), node_id="i")
    g.add_operator("Gather", node_id="g")
    g.add_output("o", node_id="o")
    g.connect("d", "output", "g", "data")
    g.connect("i", "output", "g", "indices")
    g.connect("g", "output", "o", "value")
    return g


def test_a_gather_whose_output_would_be_4_gib_is_refused_before_anything_runs():
    g = _gather_graph(1, 1 << 20, 1024)   # 4 MiB of data, 1024 picks of a 4 MiB row: 4 GiB out
    error = g.node_info("g").error
    assert "Gather: output shape [1024, 1048576] of float32 needs 4.0 GiB" in error
    assert "limited to 2.0 GiB" in error and "INDEXFLOW_MAX_SOURCE_MB" in error
    results = []
    assert _peak_mib(lambda: results.append(Engine(g).run())) < 32
    assert results[0].nodes["g"].status == NodeStatus.ERROR and "needs 4.0 GiB" in results[0].nodes["g"].error


@pytest.mark.parametrize("op, inputs", [
    ("Gather", lambda: [np.zeros((1, 1 << 16), np.float32), np.zeros(512, np.int64)]),
    ("GatherElements", lambda: [np.zeros((1, 512), np.float64),
                                np.broadcast_to(np.zeros((1, 512), np.int64), (1 << 15, 512))]),
    ("GatherND", lambda: [np.zeros((4, 1 << 16), np.float32), np.zeros((512, 1), np.int64)]),
])
def test_every_gather_refuses_an_output_over_the_cap_before_allocating(monkeypatch, op, inputs):
    import ops

    monkeypatch.setenv("INDEXFLOW_MAX_SOURCE_MB", "64")
    values = inputs()
    for call in (ops.run_op, ops.index_map):
        with pytest.raises(ops.OpError, match=r"needs 128\.0 MiB; tensors are limited to 64\.0 MiB"):
            call(op, values)
        assert _peak_mib(lambda c=call: c(op, values)) < 4


# ------------------------------------------------------------------------- interrupted saves
def _big(value):
    g = Graph("pair")
    g.add_literal(np.full((100, 100), value, np.float32), node_id="big")
    return g


_KILL_AFTER_SIDECAR = """
import os, sys
import numpy as np
from nodeeditor.graph import Graph, atomic, save_graph
real = os.replace
def replace(src, dst):
    real(src, dst)
    if str(dst).endswith(".npz"):
        os._exit(9)          # killed right after the sidecar's rename, before the JSON's
atomic.os.replace = replace
g = Graph("pair")
g.add_literal(np.full((100, 100), 2.0, np.float32), node_id="big")
save_graph(g, sys.argv[1])
"""


def _interrupted_save(path):
    proc = subprocess.run([sys.executable, "-c", _KILL_AFTER_SIDECAR, str(path)], capture_output=True, timeout=60)
    assert proc.returncode == 9, proc.stderr


def test_a_save_killed_between_sidecar_and_json_is_completed_on_loading(tmp_path):
    path = save_graph(_big(1.0), tmp_path / "g.ifg.json")
    _interrupted_save(path)
    assert len(atomic.orphans([path])) == 1                 # the new JSON, complete, never moved
    loaded = load_graph(path)
    assert float(loaded.node("big").value[0, 0]) == 2.0     # the new pair, not old JSON + new tensor
    assert atomic.orphans([path]) == []
    assert float(load_graph(path).node("big").value[0, 0]) == 2.0


def test_a_mismatched_pair_without_the_interrupted_json_is_a_clear_error(tmp_path):
    path = save_graph(_big(1.0), tmp_path / "g.ifg.json")
    _interrupted_save(path)
    for orphan in atomic.orphans([path]):
        orphan.unlink()
    with pytest.raises(GraphFileError, match="come from different saves") as info:
        load_graph(path)
    assert str(path) in str(info.value) and "g.ifg.npz" in str(info.value)


def test_a_json_copied_over_from_an_older_save_is_not_mixed_with_the_new_sidecar(tmp_path):
    path = tmp_path / "g.ifg.json"
    save_graph(_big(1.0), path)
    old_json = path.read_text()
    save_graph(_big(3.0), path)
    path.write_text(old_json)
    with pytest.raises(GraphFileError, match="come from different saves"):
        loads_graph(path.read_text(), path)


def _dead_pid():
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_the_next_save_removes_temporaries_a_killed_save_left(tmp_path):
    path = tmp_path / "g.ifg.json"
    other = tmp_path / "other.ifg.json"
    dead = _dead_pid()
    orphans = [tmp_path / atomic.temp_name(t).replace(f"-{os.getpid()}-", f"-{dead}-", 1)
               for t in (path, sidecar_path(path), other)]
    alive = tmp_path / atomic.temp_name(path)   # this process's own, as if mid-save
    for p in orphans + [alive]:
        p.write_bytes(b"partial")
    save_graph(_big(1.0), path)
    assert not orphans[0].exists() and not orphans[1].exists()
    assert orphans[2].exists() and alive.exists()          # another file's orphan; a live writer's file
    assert float(load_graph(path).node("big").value[0, 0]) == 1.0


def test_a_sidecar_whose_compressed_data_is_damaged_is_a_clear_error(tmp_path):
    # Found by tests/test_fuzz.py: zlib's own error escaped the sidecar reader.
    path = save_graph(_big(1.0), tmp_path / "g.ifg.json")
    side = sidecar_path(path)
    with zipfile.ZipFile(side) as archive:
        info = archive.infolist()[0]
    start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra) + 8
    raw = bytearray(side.read_bytes())
    raw[start:start + 16] = bytes(range(200, 216))
    side.write_bytes(bytes(raw))
    with pytest.raises(GraphFileError) as caught:
        load_graph(path)
    assert "g.ifg.npz" in str(caught.value) and "damaged" in str(caught.value)
