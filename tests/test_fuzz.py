"""A seeded, bounded fuzzer over graph files, sidecars and ONNX models, through the
``indexflow`` command in-process: ``check``, ``run --output``, ``export`` and ``import``.

Each case mutates a sound input (a bundled example, a graph reading files and a sidecar, an
exported model) in a folder of its own, runs the commands, and fails when

- anything escapes ``nodeeditor.cli.main`` (our errors are printed and give exit code 1 or 2),
  or the output holds a traceback or an engine ``internal error``;
- a case runs longer than ``CASE_SECONDS`` (a hang: a FIFO read, a loop on a huge number);
- anything is attempted that the size cap forbids: the worker runs with
  ``INDEXFLOW_MAX_SOURCE_MB=64`` under an address-space limit (``RLIMIT_AS``) well above what
  that cap allows, so an allocation of gigabytes fails with MemoryError, which the engine
  reports as "not enough memory" (also a failure here);
- a file outside the case's folder is opened, or the content of the file planted outside
  (``SENTINEL``) shows in any output.

The cases run in a subprocess (``python -m tests.test_fuzz``, also usable by hand with more
cases or another seed), which prints one JSON line per failure with the files that caused it
(kept in the output folder) and a summary line.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time
import traceback
import zipfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
SEED = 20240612
CASES = 300
CASE_SECONDS = 10.0
CAP_MB = 64
HEADROOM = 1 << 30             # address space allowed above the worker's size once warmed up
SENTINEL = 314159.265          # the value stored outside every case's folder
BUDGET_SECONDS = 40.0          # the worker stops starting cases after this long


# ---------------------------------------------------------------------------------- the test
def test_the_fuzzer_finds_no_traceback_no_hang_no_allocation_past_the_cap_no_outside_read(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    proc = subprocess.run([sys.executable, "-m", "tests.test_fuzz", "--seed", str(SEED), "--cases", str(CASES),
                           "--out", str(tmp_path / "fuzz"), "--budget", str(BUDGET_SECONDS)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=240)
    lines = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    failures = [line for line in lines if line.get("failure")]
    summary = next((line for line in lines if "summary" in line), None)
    assert proc.returncode == 0 and summary is not None, proc.stderr[-3000:]
    assert failures == [], json.dumps(failures[:5], indent=1)[:6000]
    assert summary["summary"]["cases"] >= 100, summary


# ---------------------------------------------------------------------------------- the worker
class CaseTimeout(BaseException):
    """A case ran longer than CASE_SECONDS."""


def _alarm(_signum, _frame):
    raise CaseTimeout


def _vm_bytes() -> int:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    return 0


class Fuzzer:
    def __init__(self, seed: int, out: Path) -> None:
        self.rng = random.Random(seed)
        self.out = out
        self.outside = out / "outside"
        self.outside.mkdir(parents=True, exist_ok=True)
        np.save(self.outside / "secret.npy", np.full((2, 2), SENTINEL))
        np.savetxt(self.outside / "secret.csv", np.full((2, 2), SENTINEL), delimiter=",")
        from nodeeditor.graph import graph_to_dict, list_examples, load_example

        self.examples = [graph_to_dict(load_example(info.name)) for info in list_examples()]
        from nodeeditor.onnx_io import export_model

        self.models = []
        for i, info in enumerate(list_examples()[:8]):
            try:  # half with graph inputs (whose example tensors import makes), half with initializers
                model = export_model(load_example(info.name), sources="inputs" if i % 2 else "initializers")
            except Exception:  # noqa: BLE001 - an example the exporter refuses is simply not a seed
                continue
            self.models.append(model.SerializeToString())
        self.opened: list[str] = []

    # ------------------------------------------------------------------ running one case
    def run_commands(self, folder: Path, commands: list[list[str]]) -> list[dict]:
        """Run each command in-process; failures as dicts."""
        from nodeeditor import cli

        failures = []
        for argv in commands:
            out, err = io.StringIO(), io.StringIO()
            signal.setitimer(signal.ITIMER_REAL, CASE_SECONDS)
            try:
                with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                    code = cli.main(argv)
            except CaseTimeout:
                failures.append({"kind": "hang", "argv": argv})
                continue
            except BaseException as exc:  # noqa: BLE001 - anything escaping main is what we look for
                failures.append({"kind": "traceback", "argv": argv,
                                 "error": "".join(traceback.format_exception(exc))[-2500:]})
                continue
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
            text = out.getvalue() + err.getvalue()
            problem = None
            if code not in (0, 1, 2):
                problem = f"exit code {code!r}"
            elif "Traceback" in text:
                problem = "a traceback was printed"
            elif "internal error" in text:
                problem = "an engine internal error"
            elif any(mark in text for mark in ("not enough memory", "MemoryError", "Unable to allocate")):
                problem = "an allocation past the cap was attempted (MemoryError)"
            elif f"{SENTINEL:g}"[:6] in text:
                problem = "the content of a file outside the folder was printed"
            if problem:
                failures.append({"kind": problem, "argv": argv, "output": text[-2500:]})
        outside = [p for p in self.opened if not p.startswith(str(folder)) and not p.startswith(str(ROOT))]
        if outside:
            failures.append({"kind": "a file outside the graph's folder was opened", "paths": outside[:5]})
        self.opened.clear()
        for written in folder.glob("*.onnx"):
            if np.float64(SENTINEL).tobytes() in written.read_bytes():
                failures.append({"kind": "the content of a file outside the folder was exported"})
        return failures

    # ------------------------------------------------------------------ graph files
    def junk(self):
        r = self.rng
        return r.choice([
            None, True, -1, 0, 1, 2 ** 63, -(2 ** 63) - 1, 10 ** 300, 1e308, -1e308, 0.5, "", "x", "\ud800",
            "../../outside/secret.npy", "a" * r.choice([1, 300, 70_000]), [], {}, [[[[]]]], {"a": 1},
            [100_000, 100_000], [-1, 3], [2 ** 40], [0], "nan", "inf", "float32", "int64", "string", "int2",
            {"dtype": "float32", "shape": [2 ** 31], "sidecar": "g.ifg.npz", "key": "nope"},
            {"dtype": "float32", "shape": [1 << 30], "base64": "AAAA"},
        ])

    def paths(self, doc, prefix=()):
        yield prefix
        if isinstance(doc, dict):
            for key, value in doc.items():
                yield from self.paths(value, prefix + (key,))
        elif isinstance(doc, list):
            for i, value in enumerate(doc):
                yield from self.paths(value, prefix + (i,))

    def mutate_doc(self, doc):
        r = self.rng
        for _ in range(r.randint(1, 3)):
            spots = [p for p in self.paths(doc) if p]
            if not spots:
                break
            spot = r.choice(spots)
            target = doc
            for key in spot[:-1]:
                target = target[key]
            action = r.random()
            if action < 0.6:
                target[spot[-1]] = self.junk()
            elif action < 0.75 and isinstance(target, dict):
                del target[spot[-1]]
            elif action < 0.85 and isinstance(target, list):
                target.append(json.loads(json.dumps(target[spot[-1]])))
            else:
                value = target[spot[-1]]
                if isinstance(value, list) and value and all(isinstance(v, int) for v in value):
                    target[spot[-1]] = [v * r.choice([1000, 100_000, -1]) for v in value]
                else:
                    target[spot[-1]] = self.junk()
        return doc

    def mutate_text(self, text: str) -> str:
        r = self.rng
        action = r.random()
        if action < 0.35:
            numbers = list(re.finditer(r"(?<![\w.\"])\d+", text))
            if numbers:
                m = r.choice(numbers)
                text = text[:m.start()] + "9" * r.choice([400, 4301, 5000]) + text[m.end():]
        elif action < 0.55:
            text = text[:r.randrange(max(1, len(text)))]
        elif action < 0.75:
            i = r.randrange(max(1, len(text)))
            text = text[:i] + chr(r.choice([0, 0xD800, 0xFFFF, ord("{"), ord('"'), ord("\\")])) + text[i + 1:]
        else:
            text = "[" * r.choice([100, 5000, 100_000]) + text
        return text

    def file_graph(self, folder: Path) -> dict:
        """A graph reading files from its folder (and, mutated, from outside it) with a sidecar."""
        from nodeeditor.graph import Graph, save_graph

        r = self.rng
        np.save(folder / "data.npy", np.arange(12, dtype=np.float32).reshape(3, 4))
        np.savez(folder / "arrays.npz", idx=np.array([2, 0], np.int64), other=np.ones(3))
        np.savetxt(folder / "table.csv", np.arange(6).reshape(2, 3), delimiter=",")
        g = Graph("files")
        g.add_file_source("data.npy", node_id="data")
        g.add_file_source("arrays.npz", key="idx", node_id="idx")
        g.add_file_source("table.csv", node_id="table")
        g.add_literal(np.arange(5000, dtype=np.float32), node_id="big")      # sidecar
        g.add_operator("Gather", node_id="gather")
        g.connect("data", "output", "gather", "data")
        g.connect("idx", "output", "gather", "indices")
        for src in ("gather", "table", "big"):
            g.connect(src, "output", g.add_output(f"{src} out"), "value")
        save_graph(g, folder / "g.ifg.json")
        doc = json.loads((folder / "g.ifg.json").read_text(encoding="utf-8"))   # sidecar reference and stamp
        data = next(n for n in doc["nodes"] if n["id"] == "data")
        choice = r.random()   # planted after saving: making the case reads none of it
        if choice < 0.2 and hasattr(os, "mkfifo"):
            os.mkfifo(folder / "pipe.npy")
            os.symlink(folder / "pipe.npy", folder / "link.npy")
            data["path"] = r.choice(["pipe.npy", "link.npy"])
        elif choice < 0.45:
            os.symlink(self.outside / "secret.npy", folder / "inlink.npy")
            data["path"] = r.choice(["../outside/secret.npy", str(self.outside / "secret.npy"),
                                     "../outside/secret.csv", "inlink.npy"])
        elif choice < 0.6:
            self.huge_npy(folder / "data.npy")
        return doc

    def huge_npy(self, path: Path) -> None:
        buffer = io.BytesIO()
        shape = self.rng.choice([(1 << 30,), (100_000, 100_000), (1 << 20, 1 << 20), (3, -4)])
        descr = self.rng.choice(["<f4", "|O", "<U100000", "<f8"])
        try:
            np.lib.format.write_array_header_1_0(buffer, {"descr": descr, "fortran_order": False, "shape": shape})
        except ValueError:
            buffer.write(b"\x93NUMPY\x01\x00" + b"\x10\x00" + b"{'shape': (3, -4)}\n"[:16])
        path.write_bytes(buffer.getvalue() + b"\0" * 64)

    def mutate_sidecar(self, side: Path) -> None:
        r = self.rng
        raw = side.read_bytes()
        action = r.random()
        if action < 0.5:
            members = {}
            with zipfile.ZipFile(side) as archive:
                comment = archive.comment
                for name in archive.namelist():
                    members[name] = archive.read(name)
            name = r.choice(sorted(members))
            if r.random() < 0.7:
                self.huge_npy(side.with_name("member.npy"))
                members[name] = side.with_name("member.npy").read_bytes()
            else:
                members[r.choice(["../../x.npy", name.upper(), "\u00e9.npy"])] = members.pop(name)
            with zipfile.ZipFile(side, "w") as archive:
                for member, data in members.items():
                    archive.writestr(member, data)
                archive.comment = comment if r.random() < 0.5 else b"indexflow-sidecar sha256=" + b"0" * 64
        elif action < 0.7:
            side.write_bytes(raw[:r.randrange(len(raw))])
        else:
            data = bytearray(raw)
            for _ in range(r.randint(1, 20)):
                data[r.randrange(len(data))] = r.randrange(256)
            side.write_bytes(bytes(data))

    def big_graph(self) -> dict:
        """A small graph whose operator output would be far over the cap."""
        from nodeeditor.graph import Graph, graph_to_dict

        r = self.rng
        g = Graph("big")
        rows, row = r.choice([(1, 1 << 20), (4, 1 << 16), (1 << 12, 256)])
        g.add_generator("zeros", {"shape": [rows, row]}, node_id="d")
        g.add_generator("integers", {"shape": [r.choice([16, 1024, 4096])], "low": 0, "high": rows}, node_id="i")
        op = r.choice(["Gather", "GatherElements", "GatherND"])
        g.add_operator(op, node_id="op")
        g.connect("d", "output", "op", "data")
        g.connect("i", "output", "op", "indices")
        g.connect("op", "output", g.add_output("out"), "value")
        return graph_to_dict(g)

    def graph_case(self, folder: Path) -> list[list[str]]:
        r = self.rng
        big = r.random() < 0.1
        if big:
            doc = self.big_graph()
        elif r.random() < 0.5:
            doc = json.loads(json.dumps(r.choice(self.examples)))
        else:
            doc = self.file_graph(folder)
            if r.random() < 0.4:
                self.mutate_sidecar(folder / "g.ifg.npz")
        if r.random() < (0.2 if big else 0.8):
            doc = self.mutate_doc(doc)
        from nodeeditor.graph.fileformat import dumps

        try:
            text = dumps(doc)
        except (ValueError, TypeError):
            text = json.dumps(doc, ensure_ascii=False, default=str)
        if r.random() < 0.3:
            text = self.mutate_text(text)
        (folder / "g.ifg.json").write_bytes(text.encode("utf-8", "surrogatepass"))
        graph = str(folder / "g.ifg.json")
        commands = [["check", graph], ["run", graph, "-o", str(folder / "out.npz")]]
        if r.random() < 0.25:
            commands.append(["export", graph, "-o", str(folder / "m.onnx")])
        return commands

    # ------------------------------------------------------------------ ONNX models
    def mutate_model(self, raw: bytes) -> bytes:
        import onnx
        from onnx import TensorProto, helper

        r = self.rng
        if r.random() < 0.15:
            data = bytearray(raw)
            for _ in range(r.randint(1, 10)):
                data[r.randrange(len(data))] = r.randrange(256)
            return bytes(data)
        model = onnx.load_model_from_string(raw)
        g = model.graph
        for _ in range(r.randint(1, 3)):
            action = r.randrange(9)
            if action == 0 and g.input:
                dims = r.choice(g.input).type.tensor_type.shape.dim
                if dims:
                    r.choice(dims).dim_value = r.choice([-5, 0, 2 ** 40, 100_000, 2 ** 62])
                else:
                    r.choice(g.input).type.tensor_type.elem_type = r.randrange(32)
            elif action == 1 and g.input:
                r.choice(g.input).type.tensor_type.elem_type = r.randrange(32)
            elif action == 2 and g.node:
                node = r.choice(g.node)
                field = node.input if r.random() < 0.5 else node.output
                if field:
                    del field[r.randrange(len(field))]
            elif action == 3 and g.node:
                node = r.choice(g.node)
                if node.attribute:
                    attr = r.choice(node.attribute)
                    attr.type = r.choice([onnx.AttributeProto.INT, onnx.AttributeProto.STRING,
                                          onnx.AttributeProto.FLOAT, onnx.AttributeProto.TENSOR])
                    attr.s = bytes(r.randrange(256) for _ in range(4))
                    attr.i = r.choice([-(2 ** 62), 2 ** 62, -1])
                else:
                    node.attribute.append(helper.make_attribute(r.choice(["axis", "reduction", "x"]),
                                                                r.choice([b"\xff\xfe", 2 ** 40, 1.5])))
            elif action == 4 and g.initializer:
                t = r.choice(g.initializer)
                choice = r.random()
                if choice < 0.3:
                    t.data_type = r.choice([TensorProto.INT2, TensorProto.UINT2, TensorProto.FLOAT6E2M3,
                                            TensorProto.STRING, TensorProto.UNDEFINED, 99])
                elif choice < 0.6 and t.dims:
                    t.dims[r.randrange(len(t.dims))] = r.choice([-1, 2 ** 40, 100_000])
                elif choice < 0.8:
                    t.raw_data = t.raw_data[: len(t.raw_data) // 2]
                else:
                    t.data_location = TensorProto.EXTERNAL
                    entry = t.external_data.add()
                    entry.key, entry.value = "location", r.choice(["../outside/secret.npy", "/etc/passwd"])
            elif action == 5:
                model.opset_import[0].version = r.choice([0, -1, 1, 7, 10 ** 6])
            elif action == 6:
                s = helper.make_tensor("words", TensorProto.STRING, [2], [b"ok", b"\xff\xfe"])
                g.initializer.append(s)
            elif action == 7:
                entry = model.metadata_props.add()
                entry.key = r.choice(["indexflow.display_names", "indexflow.example.x"])
                entry.value = r.choice(["{" * 5000, "9" * 5000, "[1e999]", '{"a": "\\ud800"}', "json:" + "9" * 5000])
            elif action == 8 and g.node:
                node = r.choice(g.node)
                node.op_type = r.choice(["Identity", "Constant", "ScatterND", "GatherND", "Relu"])
        return model.SerializeToString()

    def model_case(self, folder: Path) -> list[list[str]]:
        raw = self.mutate_model(self.rng.choice(self.models))
        (folder / "m.onnx").write_bytes(raw)
        graph = str(folder / "imported.ifg.json")
        return [["import", str(folder / "m.onnx"), "-o", graph], ["check", graph], ["run", graph]]

    # ------------------------------------------------------------------ the loop
    def run(self, cases: int, budget: float) -> dict:
        from nodeeditor.graph import arrayfiles

        real_open = arrayfiles.open_regular

        def spy(path):
            self.opened.append(os.path.realpath(path))
            return real_open(path)

        arrayfiles.open_regular = spy
        start = time.monotonic()
        done, kinds, failed = 0, {"graph": 0, "model": 0}, 0
        for i in range(cases):
            if time.monotonic() - start > budget:
                break
            folder = self.out / f"case-{i:04d}"
            folder.mkdir(parents=True)
            kind = "model" if self.rng.random() < 0.3 and self.models else "graph"
            signal.setitimer(signal.ITIMER_REAL, CASE_SECONDS)
            try:
                commands = self.graph_case(folder) if kind == "graph" else self.model_case(folder)
            except CaseTimeout:   # making the case read what it planted (a FIFO) and blocked
                print(json.dumps({"failure": {"kind": "hang while making the case"}, "case": str(folder)}), flush=True)
                failed += 1
                continue
            except Exception as exc:  # noqa: BLE001 - a mutation this fuzzer cannot write is skipped
                shutil.rmtree(folder, ignore_errors=True)
                print(json.dumps({"skipped": i, "why": repr(exc)[:200]}), flush=True)
                continue
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
            self.opened.clear()   # making the case (in this session, allowed) read what it planted
            failures = self.run_commands(folder, commands)
            if failures:
                failed += 1
                for failure in failures:
                    print(json.dumps({"failure": failure, "case": str(folder)}, default=str), flush=True)
            else:
                shutil.rmtree(folder, ignore_errors=True)
            done += 1
            kinds[kind] += 1
        return {"cases": done, "kinds": kinds, "failed": failed, "seconds": round(time.monotonic() - start, 1)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="fuzz IndexFlow's file, sidecar and model readers")
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--cases", type=int, default=CASES)
    parser.add_argument("--budget", type=float, default=BUDGET_SECONDS, help="seconds after which no case starts")
    parser.add_argument("--out", type=Path, required=True, help="folder for the cases (failing ones are kept)")
    args = parser.parse_args(argv)
    os.environ["INDEXFLOW_MAX_SOURCE_MB"] = str(CAP_MB)
    os.environ.setdefault("INDEXFLOW_ACCEL", "0")      # compiling kernels would take the time budget
    os.environ.setdefault("INDEXFLOW_THREADS", "1")
    import resource

    import nodeeditor.cli
    import nodeeditor.onnx_io.cli  # noqa: F401

    fuzzer = Fuzzer(args.seed, args.out)
    signal.signal(signal.SIGALRM, _alarm)
    limit = _vm_bytes() + HEADROOM
    resource.setrlimit(resource.RLIMIT_AS, (limit, resource.RLIM_INFINITY))
    summary = fuzzer.run(args.cases, args.budget)
    print(json.dumps({"summary": summary}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
